import { afterEach, describe, expect, it } from 'vitest';
import { fakeCloudKeyId } from '../../test/helpers/fake-secrets.js';
import { TestRepo } from '../../test/helpers/git-repo.js';
import { parseIgnoreFile } from './ignore.js';
import { escapeUnprintable, fingerprintOfIgnoreLine, ignoreLineOf, UNPRINTABLE } from './ignore-line.js';
import { renderReport, scanRepository } from './index.js';

const COMMIT = '0123456789ab';
const fp = (path: string) => `cloud-access-key-id:${COMMIT}:${path}:7`;

/** Paths git allows that a report cannot print as they are, or that look like ignore-file syntax. */
const PATHS: Record<string, string> = {
  tab: 'cfg/a\tb.env',
  newline: 'cfg/a\nb.env',
  'carriage return': 'cfg/a\rb.env',
  'escape sequence': 'cfg/\x1b[31mred.env',
  'other C0 control': 'cfg/a\x01b.env',
  DEL: 'cfg/a\x7fb.env',
  'C1 control': 'cfg/a\u0085b.env',
  'bidi override': 'cfg/a\u202eb.env',
  backslash: 'cfg\\win\\x.env',
  'backslash and tab': 'cfg\\a\tb.env',
  'a literal \\u0009': 'cfg/a\\u0009b.env',
  'a double quote': 'cfg/"quoted".env',
  'a quote and a tab': 'cfg/"q\t".env',
  'leading #': '#notes.env',
  'leading and trailing spaces': '  spaced.env  ',
  'non-ASCII': 'konfigurácia/ключ-鍵.env',
  'a pipe and backticks': 'cfg/a|b`c``d.env',
};

describe('ignoreLineOf and fingerprintOfIgnoreLine', () => {
  it.each([
    'cloud-access-key-id:0123456789ab:config/deploy.env:2',
    fp('cfg\\win\\x.env'),
    fp('cfg/"quoted".env'),
    fp('#notes.env'),
    fp('  spaced.env  '),
    fp('konfigurácia/ключ-鍵.env'),
  ])('writes a printable fingerprint as it is: %j', (fingerprint) => {
    expect(ignoreLineOf(fingerprint)).toBe(fingerprint);
    expect(fingerprintOfIgnoreLine(fingerprint)).toBe(fingerprint);
  });

  it.each(Object.entries(PATHS))('reads back what it writes for a path with %s', (_, path) => {
    const line = ignoreLineOf(fp(path));
    expect(line).not.toMatch(UNPRINTABLE);
    expect(line.trim()).toBe(line);
    expect(line.startsWith('#')).toBe(false);
    expect(fingerprintOfIgnoreLine(line)).toBe(fp(path));
  });

  it('quotes a fingerprint with a control character, escaping it as the reports do', () => {
    expect(ignoreLineOf(fp('a\tb\\c"d'))).toBe(`"${fp('a\\u0009b\\\\c\\"d')}"`);
  });

  it('keeps a tab and a literal backslash-u0009 apart', () => {
    const tab = ignoreLineOf(fp('a\tb'));
    const literal = ignoreLineOf(fp('a\\u0009b'));
    expect(tab).not.toBe(literal);
    expect(fingerprintOfIgnoreLine(literal)).toBe(fp('a\\u0009b'));
  });

  it('reads the short JSON escapes too, and lists nothing for a broken quoted line', () => {
    expect(fingerprintOfIgnoreLine(`"${fp('a\\tb\\nc')}"`)).toBe(fp('a\tb\nc'));
    expect(fingerprintOfIgnoreLine(`"${fp('a\\qb')}"`)).toBeNull();
    expect(fingerprintOfIgnoreLine('"unterminated')).toBeNull();
  });
});

describe('escapeUnprintable', () => {
  it('shows every unprintable character as its \\u escape, not only the first', () => {
    expect(escapeUnprintable('a\tb\u202ec\x7f')).toBe('a\\u0009b\\u202ec\\u007f');
    expect(escapeUnprintable('plain "text" \\ stays')).toBe('plain "text" \\ stays');
  });
});

describe('parseIgnoreFile', () => {
  it('reads plain and quoted lines, comments and blank lines alike', () => {
    const text = [
      '# accepted',
      '',
      `  ${fp('plain.env')}  `,
      `\t${ignoreLineOf(fp('a\tb.env'))}\r`,
      `"${fp('bad\\escape')}"`,
    ].join('\n');
    expect([...parseIgnoreFile(text)]).toEqual([fp('plain.env'), fp('a\tb.env')]);
  });
});

/** The ignore lines a text report prints, as a reader would copy them. */
function textIgnoreLines(report: string): string[] {
  return [...report.matchAll(/ignore: (.*)$/gm)].map((m) => m[1]!);
}

/**
 * The ignore lines of a markdown report as GitHub shows them: the code span in each row's last cell,
 * with the table's `\|` read as `|` and the code span's padding space removed.
 */
function markdownIgnoreLines(report: string): string[] {
  const lines: string[] = [];
  for (const row of report.split('\n')) {
    if (!row.startsWith('| ') || !row.endsWith('` |')) continue;
    const cell = row
      .slice(0, -2)
      .split(/(?<!\\) \| /)
      .at(-1)!;
    const fence = /^`+/.exec(cell)![0];
    let span = cell.slice(fence.length, -fence.length);
    if (span.startsWith(' ') && span.endsWith(' ') && span.trim() !== '') span = span.slice(1, -1);
    lines.push(span.replace(/\\\|/g, '|'));
  }
  return lines;
}

describe('a printed ignore line, written into .svcignore, ignores its finding', () => {
  const repos: TestRepo[] = [];
  afterEach(() => {
    for (const r of repos.splice(0)) r.cleanup();
  });

  it.each([
    ['text', textIgnoreLines],
    ['markdown', markdownIgnoreLines],
  ] as const)('for every kind of path, as the %s report prints it', async (format, ignoreLines) => {
    const r = new TestRepo();
    repos.push(r);
    const paths = Object.values(PATHS);
    r.commitFiles(Object.fromEntries(paths.map((p, i) => [p, `REGION=eu\nKEY=${fakeCloudKeyId(i + 1)}\n`])));
    const before = await scanRepository({ path: r.dir });
    expect(before.findings.map((f) => f.path).sort()).toEqual([...paths].sort());
    expect(before.passed).toBe(false);

    const report = renderReport(before, format, { toolVersion: '0.0.0', color: false });
    const lines = ignoreLines(report);
    expect(lines).toHaveLength(paths.length);
    r.commitFiles({ '.svcignore': `# accepted\n${lines.join('\n')}\n` });

    const after = await scanRepository({ path: r.dir });
    expect(after.findings.filter((f) => !f.ignored).map((f) => f.path)).toEqual([]);
    expect(after.passed).toBe(true);
  });
});
