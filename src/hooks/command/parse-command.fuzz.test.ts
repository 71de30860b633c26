import { describe, expect, it } from 'vitest';
import { ECOSYSTEMS } from '../ecosystems/index.js';
import { MAX_PACKAGES, type ParsedCommand } from '../types.js';
import { parseCommandLine } from './parse-command.js';

const IDS: string[] = ECOSYSTEMS.map((e) => e.id);

/** A small deterministic PRNG (mulberry32), so a failure can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  ...['npm', 'i', 'install', 'pip', 'uv', 'pip', 'add', 'cargo', 'go', 'get', 'dotnet', 'package'],
  ...['python', '-m', 'sudo', 'env', 'bash', '-c', 'eval', 'xargs', 'time', 'yarn', 'pnpm', 'bun'],
  ...['lodash', '@scope/x', 'a@1', 'pkg==1', 'x[y]>=2', '-r', '--registry', '-e', '.', './x', '~/'],
  ...['"', "'", '`', '$', '${', '}', '$(', ')', '(', '\\', '#', ';', '&&', '||', '|', '&', '>', '<'],
  ...['2>&1', '<<', '\n', '\r', '\t', ' ', ' ', ' ', '=', 'A=1', '@', ':', '/', '*', '?', '\0', '\x1b'],
  ...["$'", '\\\n', 'git+https://x', 'https://y', 'npm:', 'cmd', '/c', '-Command', '--', '-'],
];

function randomLine(next: () => number): string {
  const parts: string[] = [];
  const n = Math.floor(next() * 40);
  for (let i = 0; i < n; i++) {
    if (next() < 0.1) {
      parts.push(String.fromCharCode(Math.floor(next() * 0x2fff)));
    } else {
      parts.push(PIECES[Math.floor(next() * PIECES.length)]!);
    }
    if (next() < 0.6) parts.push(' ');
  }
  return parts.join('');
}

function expectWellFormed(parsed: ParsedCommand): void {
  expect(typeof parsed.isInstall).toBe('boolean');
  expect(parsed.installs.length).toBeLessThanOrEqual(MAX_PACKAGES);
  for (const r of parsed.installs) {
    expect(IDS).toContain(r.ecosystem);
    expect(typeof r.name).toBe('string');
    expect(r.name.length).toBeGreaterThan(0);
    expect(r.version === null || (typeof r.version === 'string' && r.version !== '')).toBe(true);
  }
  for (const s of parsed.skipped) {
    expect(typeof s.spec).toBe('string');
    expect(typeof s.why).toBe('string');
  }
  if (parsed.installs.length > 0 || parsed.skipped.length > 0) expect(parsed.isInstall).toBe(true);
}

describe('parseCommandLine on any input', () => {
  it('never throws on random lines built from shell fragments', () => {
    const next = prng(0x5eed);
    for (let i = 0; i < 3000; i++) {
      const line = randomLine(next);
      let parsed: ParsedCommand | undefined;
      expect(() => {
        parsed = parseCommandLine(line);
      }, JSON.stringify(line)).not.toThrow();
      expectWellFormed(parsed!);
    }
  });

  it('never throws on random characters, control characters included', () => {
    const next = prng(42);
    for (let i = 0; i < 1000; i++) {
      const length = Math.floor(next() * 200);
      const line = Array.from({ length }, () => String.fromCharCode(Math.floor(next() * 0x80))).join('');
      expectWellFormed(parseCommandLine(line));
    }
  });

  it.each([
    ['unbalanced double quote', 'npm i "lodash'],
    ['unbalanced single quote', "pip install 'requests"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template
    ['empty substitution', 'npm i ${} lodash'],
    ['unclosed substitution', 'npm i ${PKG lodash'],
    ['lone backslash', 'npm i lodash \\'],
    ['NUL and escape characters', 'npm i lo\0dash \x1b[31mred'],
    ['lone surrogate', 'npm i \ud800'],
    ['only operators', '&& || ; | & ( ) < > >>'],
  ])('never throws: %s', (_, line) => {
    expectWellFormed(parseCommandLine(line));
  });

  // How fast a 100 KB line is read is measured by `npm run bench:hot-paths`, not asserted here. A
  // parser that goes quadratic or worse on these lines takes minutes, and the per-test timeout below
  // (far above any machine's time for a linear read) turns that into a failure.
  const LINEAR_READ_TIMEOUT_MS = 30_000;

  it(
    'reads a 100 KB line and finds the install at its end',
    () => {
      const line = `echo ${'x'.repeat(100_000)} && npm i lodash`;
      const parsed = parseCommandLine(line);
      expect(parsed.installs).toEqual([{ ecosystem: 'npm', name: 'lodash', version: null }]);
    },
    LINEAR_READ_TIMEOUT_MS,
  );

  it.each([
    ['quotes', '"'.repeat(100_001)],
    ['ANSI-C quotes', "$'".repeat(50_000)],
    ['substitutions', '${'.repeat(50_000)],
    ['backquotes', '`'.repeat(100_000)],
    ['comments', 'a#'.repeat(50_000)],
    ['operators', '&&'.repeat(50_000)],
    ['package names', `npm i ${'x '.repeat(50_000)}`],
    ['assignments', `${'A=1 '.repeat(25_000)}npm i x`],
    ['control characters', Array.from({ length: 100_000 }, (_, i) => String.fromCharCode(i % 32)).join('')],
  ])(
    'reads a 100 KB line of %s without throwing',
    (_, line) => {
      expectWellFormed(parseCommandLine(line));
    },
    LINEAR_READ_TIMEOUT_MS,
  );

  it('answers an empty reading for what is not a string', () => {
    expect(parseCommandLine(undefined as unknown as string)).toEqual({
      installs: [],
      skipped: [],
      isInstall: false,
    });
  });
});
