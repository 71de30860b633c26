import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ECOSYSTEMS } from '../ecosystems/index.js';
import { type Ecosystem, MAX_PACKAGES, type ParsedCommand } from '../types.js';
import { parseCommandLine } from './parse-command.js';

const IDS: string[] = ECOSYSTEMS.map((e) => e.id);

/** Shell pieces that change how a line splits into words and commands. */
const SHELL_PIECES = [
  ...['"', "'", '`', '$', '${', '}', '$(', ')', '(', '\\', '#', ';', '&&', '||', '|', '&', '>', '<'],
  ...['2>&1', '<<', '<<<', "<<'EOF'", 'EOF', '\n', '\r\n', '\\\n', '\t', ' ', ' ', '=', 'A=1', "$'"],
  ...['\0', '\x1b', '--', '-', '*', '?', '@', ':', '/', '~/'],
];

/** Words that wrap or run another command: the parser reads through them. */
const WRAPPER_WORDS = ['sudo', 'env', 'bash', 'sh', '-c', '-lc', 'eval', 'xargs', 'time', 'nohup', 'command'];
const WINDOWS_WORDS = ['cmd', '/c', 'powershell', '-Command', '-NoProfile'];

/** Words of install commands of every ecosystem, and package-like arguments. */
const INSTALL_WORDS = [
  ...['npm', 'i', 'install', 'ci', 'yarn', 'pnpm', 'bun', 'add', 'cnpm', 'pip', 'pip3', 'python', '-m'],
  ...['uv', 'pipx', 'poetry', 'pdm', 'cargo', 'go', 'get', 'dotnet', 'package', 'NPM.CMD', 'pip3.11'],
  ...['lodash', '@scope/x', 'a@1', 'pkg==1', 'x[y]>=2', '-r', '--registry', '-e', '.', './x', 'npm:'],
  ...['git+https://x', 'https://y', 'github.com/a/b@v1', 'Newtonsoft.Json', '--version', '-D', '-g'],
];

/** One character outside ASCII (accents, Cyrillic, CJK punctuation, symbols: the range the old fuzz used). */
const nonAscii = fc.integer({ min: 0x80, max: 0x2fff }).map((c) => String.fromCharCode(c));
const surrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const control = fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c));

/** A line joined from pieces, each followed by a space or not (so quotes and words run together). */
function lineOf(piece: fc.Arbitrary<string>, maxPieces = 40): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(piece, fc.boolean()), { maxLength: maxPieces })
    .map((parts) => parts.map(([p, spaced]) => (spaced ? `${p} ` : p)).join(''));
}

const anyPiece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SHELL_PIECES) },
  { weight: 4, arbitrary: fc.constantFrom(...INSTALL_WORDS) },
  { weight: 2, arbitrary: fc.constantFrom(...WRAPPER_WORDS, ...WINDOWS_WORDS) },
  { weight: 1, arbitrary: nonAscii },
  { weight: 1, arbitrary: surrogate },
  { weight: 1, arbitrary: control },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);

/** Lines of shell fragments, install words among them: the parser's hostile input. */
const shellishLine = lineOf(anyPiece);

/** The form a name can take in the line once the shell's quoting is taken off. */
function unquoted(line: string): string {
  return line.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1').replace(/['"`]/g, '');
}

function expectWellFormed(parsed: ParsedCommand): void {
  expect(typeof parsed.isInstall).toBe('boolean');
  expect(parsed.installs.length).toBeLessThanOrEqual(MAX_PACKAGES);
  for (const r of parsed.installs) {
    expect(IDS).toContain(r.ecosystem);
    expect(r.version === null || (typeof r.version === 'string' && r.version !== '')).toBe(true);
  }
  for (const s of parsed.skipped) {
    expect(typeof s.spec).toBe('string');
    expect(typeof s.why).toBe('string');
  }
  if (parsed.installs.length > 0 || parsed.skipped.length > 0) expect(parsed.isInstall).toBe(true);
}

describe('parseCommandLine, properties on shell-ish lines', () => {
  it('never throws and always answers a well-formed reading', () => {
    fc.assert(
      fc.property(shellishLine, (line) => {
        expectWellFormed(parseCommandLine(line));
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws on any string, control characters and lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (line) => {
        expectWellFormed(parseCommandLine(line));
      }),
      { numRuns: 500 },
    );
  });

  it('reports each package by a non-empty name the line spells (once its quoting is taken off)', () => {
    fc.assert(
      fc.property(shellishLine, (line) => {
        const plain = unquoted(line);
        for (const { name } of parseCommandLine(line).installs) {
          expect(name).not.toBe('');
          expect(line.includes(name) || plain.includes(name), JSON.stringify(name)).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('is a pure function of the line: the same line reads the same twice', () => {
    fc.assert(
      fc.property(shellishLine, (line) => {
        expect(parseCommandLine(line)).toEqual(parseCommandLine(line));
      }),
      { numRuns: 300 },
    );
  });
});

/**
 * Every ecosystem's command names contain one of these, in any case, whatever separates their
 * letters (`n''pm`, `n\pm`, `python3.12`, `yarnpkg`, `dotnet.exe`): a line without any of them, once
 * everything but letters, digits and dots is removed, names no install command.
 */
const COMMAND_STEMS = ['npm', 'yarn', 'bun', 'pip', 'poetry', 'pdm', 'uv', 'py', 'cargo', 'go', 'dotnet'];

function mentionsACommand(line: string): boolean {
  const letters = line.toLowerCase().replace(/[^a-z0-9.]/g, '');
  return COMMAND_STEMS.some((stem) => letters.includes(stem));
}

/** Words that look like an install but name no ecosystem's command. */
const NON_INSTALL_WORDS = [
  ...['echo', 'ls', 'cat', 'git', 'commit', '-m', 'make', 'docker', 'run', 'node', 'deno', 'npx', 'rm'],
  ...['install', 'i', 'add', 'get', 'ci', 'lodash', '@scope/x', 'a@1', 'x==1', '-r', '.', './x', 'apt'],
  ...['brew', 'gem', 'composer', 'mvn', 'apk', 'dnf', 'snap', 'helm', 'kubectl', 'terraform', 'cd', 'src'],
];

function nonInstallLineOf(shellPieces: readonly string[]): fc.Arbitrary<string> {
  return lineOf(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...shellPieces) },
      { weight: 4, arbitrary: fc.constantFrom(...NON_INSTALL_WORDS) },
      { weight: 2, arbitrary: fc.constantFrom(...WRAPPER_WORDS, ...WINDOWS_WORDS) },
      { weight: 1, arbitrary: nonAscii },
      { weight: 1, arbitrary: control },
    ),
  ).filter((line) => !mentionsACommand(line));
}

const nonInstallLine = nonInstallLineOf(SHELL_PIECES);

/**
 * The same without what carries over a newline (a quote, a `\`, a here-document): a line of these
 * ends where its newline is, whatever else it left open. `<` and `<` side by side open one too.
 */
const closedNonInstallLine = nonInstallLineOf(SHELL_PIECES.filter((p) => !/["'`\\]|<</.test(p))).filter(
  (line) => !line.includes('<<'),
);

describe('parseCommandLine, a line naming no install command', () => {
  it('reports no install, no package and nothing skipped', () => {
    fc.assert(
      fc.property(nonInstallLine, (line) => {
        expect(parseCommandLine(line)).toEqual({ installs: [], skipped: [], isInstall: false });
      }),
      { numRuns: 1000 },
    );
  });
});

// Real install commands of every ecosystem, with the packages each names: the model the parser's
// reading is compared with.

interface Expected {
  ecosystem: Ecosystem;
  name: string;
  version: string | null;
}
interface InstallLine {
  line: string;
  packages: Expected[];
}

const lower = 'abcdefghijklmnopqrstuvwxyz';
const digits = '0123456789';
const chars = (alphabet: string, min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength: min, maxLength: max });

/** `a-b`, `x1`: starts with a letter, ends with a letter or digit, dashes and underscores inside. */
const simpleName = fc
  .tuple(
    chars(lower, 1, 1),
    fc.option(fc.tuple(chars(`${lower}${digits}-_`, 0, 10), chars(`${lower}${digits}`, 1, 1)), { nil: null }),
  )
  .map(([first, rest]) => (rest === null ? first : first + rest[0] + rest[1]));
const semver = fc.tuple(fc.nat(20), fc.nat(20), fc.nat(20)).map(([a, b, c]) => `${a}.${b}.${c}`);

const npmSpec = fc
  .tuple(
    fc.option(simpleName, { nil: undefined }),
    simpleName,
    fc.option(
      fc.oneof(
        semver,
        semver.map((v) => `^${v}`),
        fc.constant('latest'),
      ),
      { nil: null },
    ),
  )
  .map(([scope, bare, version]): [string, Expected] => {
    const name = scope === undefined ? bare : `@${scope}/${bare}`;
    return [version === null ? name : `${name}@${version}`, { ecosystem: 'npm', name, version }];
  });

const npmLine = fc
  .tuple(
    fc.constantFrom(
      'npm install',
      'npm i',
      'npm add',
      'cnpm install',
      'npm i -D',
      'npm install --save-dev',
      'npm i -g',
      'yarn add',
      'yarnpkg add -D',
      'yarn global add',
      'pnpm add',
      'pnpm i',
      'bun add',
      'bun a',
    ),
    fc.array(npmSpec, { minLength: 1, maxLength: 4 }),
  )
  .map(([command, specs]) => ({
    line: `${command} ${specs.map(([s]) => s).join(' ')}`,
    packages: specs.map(([, p]) => p),
  }));

/** PyPI names keep their case: `Django`, `ruamel.yaml`. */
const pypiName = fc
  .tuple(simpleName, fc.option(fc.constantFrom('.yaml', '.Core', 'X'), { nil: '' }))
  .map(([a, b]) => a + b);

const pipLine = fc
  .tuple(
    fc.constantFrom(
      'pip install',
      'pip3 install -U',
      'pip3.11 install --user',
      'python -m pip install',
      'python3 -m pip install --upgrade',
      'uv pip install',
      'pipx install',
    ),
    fc.array(
      fc.tuple(
        pypiName,
        fc.option(
          semver.map((v) => `==${v}`),
          { nil: null },
        ),
      ),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
  )
  .map(([command, specs]) => ({
    line: `${command} ${specs.map(([n, v]) => n + (v ?? '')).join(' ')}`,
    packages: specs.map(([name, version]): Expected => ({ ecosystem: 'PyPI', name, version })),
  }));

const pythonToolLine = fc
  .tuple(
    fc.constantFrom('poetry add', 'poetry add --group dev', 'pdm add', 'uv add', 'uv add --dev'),
    fc.array(
      fc.tuple(
        pypiName,
        fc.option(
          semver.map((v) => `^${v}`),
          { nil: null },
        ),
      ),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
  )
  .map(([command, specs]) => ({
    line: `${command} ${specs.map(([n, v]) => (v === null ? n : `${n}@${v}`)).join(' ')}`,
    packages: specs.map(([name, version]): Expected => ({ ecosystem: 'PyPI', name, version })),
  }));

const cargoLine = fc
  .tuple(
    fc.constantFrom('cargo add', 'cargo add --dev', 'cargo +nightly add'),
    fc.array(fc.tuple(simpleName, fc.option(semver, { nil: null })), { minLength: 1, maxLength: 3 }),
  )
  .map(([command, specs]) => ({
    line: `${command} ${specs.map(([n, v]) => (v === null ? n : `${n}@${v}`)).join(' ')}`,
    packages: specs.map(([name, version]): Expected => ({ ecosystem: 'crates.io', name, version })),
  }));

const goLine = fc
  .tuple(
    fc.constantFrom('go get', 'go get -u', 'go install'),
    fc.constantFrom('github.com', 'golang.org', 'gitlab.com'),
    simpleName,
    simpleName,
    fc.oneof(
      semver.map((v) => `v${v}`),
      fc.constant('latest'),
    ),
  )
  .map(([command, host, owner, repo, version]): InstallLine => {
    const name = `${host}/${owner}/${repo}`;
    return { line: `${command} ${name}@${version}`, packages: [{ ecosystem: 'Go', name, version }] };
  });

/** NuGet ids: `Serilog`, `Newtonsoft.Json`. */
const nugetId = fc
  .array(
    fc.tuple(chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 1, 1), chars(lower, 1, 8)).map(([a, b]) => a + b),
    { minLength: 1, maxLength: 3 },
  )
  .map((parts) => parts.join('.'));

const dotnetLine = fc
  .tuple(
    fc.constantFrom('dotnet add package', 'dotnet add App.csproj package', 'dotnet package add'),
    nugetId,
    fc.option(semver, { nil: null }),
  )
  .map(([command, name, version]): InstallLine => {
    const spec =
      version === null
        ? name
        : command.startsWith('dotnet package')
          ? `${name}@${version}`
          : `${name} --version ${version}`;
    return { line: `${command} ${spec}`, packages: [{ ecosystem: 'NuGet', name, version }] };
  });

const installCommand: fc.Arbitrary<InstallLine> = fc.oneof(
  npmLine,
  pipLine,
  pythonToolLine,
  cargoLine,
  goLine,
  dotnetLine,
);

/** Wrappers that run the command unchanged. */
const wrapped = fc
  .tuple(
    fc.constantFrom('', 'sudo ', 'sudo -E ', 'env CI=1 ', 'time ', 'nohup ', 'FOO=bar ', 'command '),
    installCommand,
  )
  .map(([wrapper, c]) => ({ ...c, line: wrapper + c.line }));

const SEPARATORS = ['; ', ' && ', ' || ', ' | ', ' & ', '\n', '\r\n', ';'];

/** Several install commands joined by separators, as an agent writes them. */
const installLine: fc.Arbitrary<InstallLine> = fc
  .tuple(wrapped, fc.array(fc.tuple(fc.constantFrom(...SEPARATORS), wrapped), { maxLength: 3 }))
  .map(([first, rest]) => ({
    line: first.line + rest.map(([sep, c]) => sep + c.line).join(''),
    packages: [first, ...rest.map(([, c]) => c)].flatMap((c) => c.packages),
  }));

/** What the parser promises for these packages: repeats removed, the first MAX_PACKAGES kept. */
function expectedInstalls(packages: Expected[]): Expected[] {
  const seen = new Set<string>();
  return packages
    .filter((p) => {
      const key = JSON.stringify([p.ecosystem, p.name, p.version]);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, MAX_PACKAGES);
}

describe('parseCommandLine on real install commands of every ecosystem', () => {
  it('reports exactly the packages the commands name, in order', () => {
    fc.assert(
      fc.property(installLine, ({ line, packages }) => {
        const parsed = parseCommandLine(line);
        expect(parsed.isInstall).toBe(true);
        expect(parsed.installs).toEqual(expectedInstalls(packages));
      }),
      { numRuns: 1000 },
    );
  });

  it('reports only names that occur in the line as typed', () => {
    fc.assert(
      fc.property(installLine, ({ line }) => {
        for (const { name } of parseCommandLine(line).installs) {
          expect(name).not.toBe('');
          expect(line).toContain(name);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('keeps every package when `; echo hi` is appended', () => {
    fc.assert(
      fc.property(installLine, ({ line }) => {
        expect(parseCommandLine(`${line}; echo hi`)).toEqual(parseCommandLine(line));
      }),
      { numRuns: 500 },
    );
  });

  it('finds the same packages inside `bash -c` and `sh -c` scripts', () => {
    fc.assert(
      fc.property(
        installLine,
        fc.constantFrom("bash -c '", "sh -c '", "bash -lc '", "eval '"),
        ({ line }, shell) => {
          // Newlines split commands inside the script as they do outside.
          expect(parseCommandLine(`${shell}${line}'`).installs).toEqual(parseCommandLine(line).installs);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads an install after any line of non-install shell fragments', () => {
    fc.assert(
      fc.property(closedNonInstallLine, installCommand, (noise, { line, packages }) => {
        expect(parseCommandLine(`${noise}\n${line}`).installs).toEqual(expectedInstalls(packages));
      }),
      { numRuns: 500 },
    );
  });
});
