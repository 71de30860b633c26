import { describe, expect, it } from 'vitest';
import { packagesFromArgs, readNpmSpec } from './args.js';

describe('readNpmSpec', () => {
  it.each([
    ['lodash', 'lodash', null],
    ['lodash@^4.17.21', 'lodash', '^4.17.21'],
    ['lodash@latest', 'lodash', 'latest'],
    ['lodash@>=4 <5 || 6.x', 'lodash', '>=4 <5 || 6.x'],
    ['@scope/pkg', '@scope/pkg', null],
    ['@scope/pkg@1', '@scope/pkg', '1'],
    ['alias@npm:real@1', 'real', '1'],
    ['alias@npm:@scope/real', '@scope/real', null],
    ['npm:real@2', 'real', '2'],
    ['react@catalog:', 'react', null],
    ['lodash@', 'lodash', null],
  ])('%s is %s %s', (spec, name, version) => {
    expect(readNpmSpec(spec)).toEqual({ request: { ecosystem: 'npm', name, version } });
  });

  it.each([
    ['./x', 'local path'],
    ['file:x', 'local path'],
    ['x@link:../x', 'local path'],
    ['x@workspace:^', 'local path'],
    ['x.tgz', 'local archive file'],
    ['http://h/x.tgz', 'URL'],
    ['x@http://h/x.tgz', 'URL'],
    ['user/repo', 'source-control source'],
    ['x@user/repo', 'source-control source'],
    ['gitlab:u/r', 'source-control source'],
    ['x@git+ssh://git@h/r.git', 'source-control source'],
    ['a@npm:b@npm:c', 'not a package name'],
    ['@scope', 'not a package name'],
    ['_private', 'not a package name'],
    ['x@1#', 'not a version'],
    ['$X', 'shell expansion, value unknown'],
    ['x@jsr:@std/y', 'not an npm registry source (jsr:)'],
  ])('%s is skipped: %s', (spec, why) => {
    expect(readNpmSpec(spec)).toEqual({ why });
  });

  it('reads nothing from an empty argument', () => {
    expect(readNpmSpec('  ')).toBeNull();
  });
});

describe('packagesFromArgs (npm family)', () => {
  const names = (args: string[], tool?: 'npm' | 'yarn' | 'pnpm' | 'bun') =>
    packagesFromArgs(args, tool).installs.map((r) => r.name);

  it('skips the values of options that take one, per tool', () => {
    expect(names(['-w', 'web', 'react'], 'npm')).toEqual(['react']);
    expect(names(['-w', 'react'], 'pnpm')).toEqual(['react']); // pnpm: -w is --workspace-root
    expect(names(['-W', 'react'], 'yarn')).toEqual(['react']);
    expect(names(['--filter', 'web', 'react', '-F', 'api'], 'pnpm')).toEqual(['react']);
    expect(names(['--cwd', 'api', 'hono'], 'bun')).toEqual(['hono']);
    expect(names(['--registry', 'https://r.example', '--prefix=app', 'x'], 'npm')).toEqual(['x']);
  });

  it('reads everything after -- as packages', () => {
    expect(names(['--', '--not-an-option'])).toEqual([]);
    expect(packagesFromArgs(['--', 'x', '-y']).skipped).toEqual([{ spec: '-y', why: 'not a package name' }]);
  });

  it.each([
    [['--tag', 'beta', 'my-lib'], [], 'npm', ['beta']],
    [['--tag=beta', 'my-lib', 'other@1.2.3'], [], 'npm', ['beta', '1.2.3']],
    [['my-lib'], ['--tag', 'beta'], 'npm', ['beta']],
    [['--tag', 'beta'], [], 'npm', []],
    [['--tag=beta', 'my-lib'], [], 'yarn', [null]], // npm's option only
  ] as const)('npm --tag: %j after %j with %s gives versions %j', (args, leading, tool, versions) => {
    const { installs } = packagesFromArgs(args, tool, leading);
    expect(installs.map((r) => r.version)).toEqual(versions);
  });

  it('keeps the order of packages and skipped specs', () => {
    expect(packagesFromArgs(['a', './b', 'c@2'])).toEqual({
      installs: [
        { ecosystem: 'npm', name: 'a', version: null },
        { ecosystem: 'npm', name: 'c', version: '2' },
      ],
      skipped: [{ spec: './b', why: 'local path' }],
    });
  });
});
