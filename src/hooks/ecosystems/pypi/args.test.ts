import { describe, expect, it } from 'vitest';
import { packagesFromArgs, readPythonSpec } from './args.js';

describe('readPythonSpec', () => {
  it.each([
    ['requests', 'requests', null],
    ['requests==2.31.0', 'requests', '==2.31.0'],
    ['pkg>=1,<2', 'pkg', '>=1,<2'],
    ['pkg >= 1 , < 2', 'pkg', '>=1,<2'],
    ['pkg[extra]>=2', 'pkg', '>=2'],
    ['pkg[a,b] ~= 1.4', 'pkg', '~=1.4'],
    ['pkg~=1.4', 'pkg', '~=1.4'],
    ['pkg==1.0.*', 'pkg', '==1.0.*'],
    ['pkg (>=1.0)', 'pkg', '>=1.0'],
    ['pkg>=1; python_version < "3.9"', 'pkg', '>=1'],
    ['pkg; sys_platform == "win32"', 'pkg', null],
    ['pkg@^1.2', 'pkg', '^1.2'],
    ['pkg@latest', 'pkg', 'latest'],
    ['Django', 'Django', null],
    ['zope.interface', 'zope.interface', null],
    ['backports.zoneinfo[tzdata]', 'backports.zoneinfo', null],
  ])('%s is %s %s', (spec, name, version) => {
    expect(readPythonSpec(spec)).toEqual({ request: { ecosystem: 'PyPI', name, version } });
  });

  it.each([
    ['pkg @ https://h/pkg.whl', 'URL'],
    ['pkg@https://h/pkg.tar.gz', 'URL'],
    ['pkg @ git+https://h/r.git', 'source-control source'],
    ['pkg @ file:///tmp/pkg', 'local path'],
    ['pkg @ ./pkg', 'local path'],
    ['git+ssh://git@h/r.git', 'source-control source'],
    ['hg+https://h/r', 'source-control source'],
    ['https://h/x.whl', 'URL'],
    ['x-1.0-py3-none-any.whl', 'local archive file'],
    ['x-1.0.zip', 'local archive file'],
    ['.', 'local path'],
    ['src/pkg', 'local path'],
    ['C:\\pkgs\\x', 'local path'],
    ['pkg 1.0', 'not a package name'],
    ['pkg is great', 'not a package name'],
    ['==1.0', 'not a package name'],
    ['pkg==1"', 'not a version'],
    ['$PKG', 'shell expansion, value unknown'],
  ])('%s is skipped: %s', (spec, why) => {
    expect(readPythonSpec(spec)).toEqual({ why });
  });
});

describe('packagesFromArgs (Python tools)', () => {
  it('names requirement files without reading them, in -r, --requirement= and clustered forms', () => {
    expect(packagesFromArgs(['-r', 'a.txt', '--requirement=b.txt', '-Urc.txt', 'x']).skipped).toEqual([
      { spec: 'a.txt', why: 'requirements file not read' },
      { spec: 'b.txt', why: 'requirements file not read' },
      { spec: 'c.txt', why: 'requirements file not read' },
    ]);
  });

  it('ignores constraint files and index URLs', () => {
    expect(
      packagesFromArgs([
        '-c',
        'constraints.txt',
        '-i',
        'https://i.example/simple',
        '--extra-index-url=u',
        'x',
      ]),
    ).toEqual({ installs: [{ ecosystem: 'PyPI', name: 'x', version: null }], skipped: [] });
  });

  it('reads an editable install as the path or checkout it is', () => {
    expect(packagesFromArgs(['-e', '.', '-e', 'git+https://h/r.git', '-e', 'name']).skipped).toEqual([
      { spec: '.', why: 'local path' },
      { spec: 'git+https://h/r.git', why: 'source-control source' },
      { spec: 'name', why: 'editable install' },
    ]);
  });

  it('knows each tool’s options', () => {
    const names = (args: string[], tool: 'pip' | 'pipx' | 'poetry' | 'pdm' | 'uv') =>
      packagesFromArgs(args, tool).installs.map((r) => r.name);
    expect(names(['-G', 'dev', 'pytest'], 'poetry')).toEqual(['pytest']);
    expect(names(['--group=dev', 'pytest'], 'poetry')).toEqual(['pytest']);
    expect(names(['-dG', 'test', 'pytest'], 'pdm')).toEqual(['pytest']);
    expect(names(['-p', '3.12', '--dev', 'ruff'], 'uv')).toEqual(['ruff']);
    expect(names(['--python', 'python3.12', 'black'], 'pipx')).toEqual(['black']);
    expect(names(['--target', 'vendor', '--no-deps', 'six'], 'pip')).toEqual(['six']);
  });

  it('reads old pipx --spec as the package, the positional as its name only', () => {
    expect(packagesFromArgs(['--spec', 'black==24.1.0', 'black'], 'pipx').installs).toEqual([
      { ecosystem: 'PyPI', name: 'black', version: '==24.1.0' },
    ]);
  });
});
