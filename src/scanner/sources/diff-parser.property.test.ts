import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CommitInfo, DiffStreamParser } from './diff-parser.js';

/** What the sink was told, one entry a candidate line. */
interface Reported {
  sha: string;
  path: string;
  lineNo: number;
  text: string;
}

/** Feeds `bytes` to a parser in chunks of the given sizes (cycled), then ends it. */
function parse(bytes: Buffer, prefilter: RegExp, chunkSizes: readonly number[] = [bytes.length]): Reported[] {
  const seen: Reported[] = [];
  const parser = new DiffStreamParser(
    {
      onCandidateLine: (c: CommitInfo, path: string, lineNo: number, text: string) =>
        seen.push({ sha: c.sha, path, lineNo, text }),
    },
    prefilter,
  );
  for (let at = 0, k = 0; at < bytes.length; k++) {
    const size = Math.max(1, chunkSizes[k % chunkSizes.length] ?? 1);
    parser.push(bytes.subarray(at, at + size));
    at += size;
  }
  parser.end();
  return seen;
}

/** Every line with at least one character is a candidate. */
const ANYTHING = () => /[\s\S]/g;
/** An ASCII keyword: found alike in the latin1 text the parser searches and the UTF-8 it reports. */
const KEYWORD = () => /KEY/g;

const chunkSizes = fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 8 });

// A model of `git log -p -U0 --cc --format=%x01%H%x1f%an%x1f%aI --dst-prefix=b/` output.

/** How a content line relates to the new file (see LineKind in the parser). */
type Kind = 'added' | 'kept' | 'removed';
interface ContentLine {
  kind: Kind;
  /** The line's text as in the file: no newline; it may end in a CR (a CRLF file). */
  text: string;
}
interface Hunk {
  newStart: number;
  lines: ContentLine[];
}
interface FileDiff {
  path: string;
  /** 1 for a normal diff, 2 for the combined diff of a merge of two parents. */
  columns: 1 | 2;
  deleted: boolean;
  hunks: Hunk[];
}
interface Commit {
  sha: string;
  author: string;
  date: string;
  files: FileDiff[];
}

const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 40, maxLength: 40 });
/** Text of one line: any Unicode but a newline (a lone surrogate would not survive UTF-8). */
const lineText = fc
  .oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'grapheme', maxLength: 30 }))
  .map((s) => s.replace(/\n/g, ''));
const contentText = fc.oneof(
  lineText,
  fc.tuple(lineText, lineText).map(([a, b]) => `${a}KEY${b}`),
  lineText.map((s) => `${s}\r`),
);
const pathText = fc.oneof(
  fc.constantFrom('a.env', 'src/app.js', 'config/deploy.env', 'with space.txt', 'ü b.txt', 'dir/ключ.env'),
  fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 20 })
    .filter((p) => !p.startsWith('/') && !p.endsWith('/') && !p.includes('//')),
);

function contentLine(columns: 1 | 2): fc.Arbitrary<ContentLine> {
  // -U0 hunks have no context, but a merge's lines may come from one parent (kept).
  const kinds: Kind[] = columns === 1 ? ['added', 'added', 'removed'] : ['added', 'kept', 'removed'];
  return fc.record({ kind: fc.constantFrom(...kinds), text: contentText });
}

const fileDiff: fc.Arbitrary<FileDiff> = fc
  .record({
    path: pathText,
    columns: fc.constantFrom<1 | 2>(1, 1, 2),
    deleted: fc.constantFrom(false, false, false, true),
    gaps: fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 3 }),
  })
  .chain(({ path, columns, deleted, gaps }) =>
    fc.tuple(
      fc.constant({ path, columns, deleted, gaps }),
      fc.tuple(...gaps.map(() => fc.array(contentLine(columns), { minLength: 1, maxLength: 6 }))),
    ),
  )
  .map(([{ path, columns, deleted, gaps }, bodies]) => {
    // A deleted file has only removed lines; hunks follow one another down the file.
    let next = 0;
    const hunks = bodies.map((lines, i) => {
      const newStart = next + gaps[i]!;
      const body = deleted ? lines.map((l) => ({ ...l, kind: 'removed' as const })) : lines;
      next = newStart + body.filter((l) => l.kind !== 'removed').length;
      return { newStart, lines: body };
    });
    return { path, columns, deleted, hunks };
  });

const commit: fc.Arbitrary<Commit> = fc.record({
  sha: hex,
  author: fc.string({ maxLength: 12 }).map((s) => s.replace(/[\n\x1f]/g, '')),
  date: fc.constantFrom('2024-01-02T03:04:05+00:00', '2020-02-29T23:59:59-07:00'),
  files: fc.array(fileDiff, { maxLength: 3 }),
});

const history = fc.array(commit, { minLength: 1, maxLength: 3 });

const SIMPLE_ESCAPES: Record<string, string> = { '\t': '\\t', '\n': '\\n', '"': '\\"', '\\': '\\\\' };

/** A path as git writes it in `+++ b/<path>`: C-quoted when it holds a quote, `\`, a control or non-ASCII. */
function gitPath(prefix: string, path: string): string {
  const full = prefix + path;
  if (!/["\\\u0000-\u001f\u007f-\uffff]/.test(full)) return path.includes(' ') ? `${full}\t` : full;
  let out = '"';
  for (const byte of Buffer.from(full, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (SIMPLE_ESCAPES[c] !== undefined) out += SIMPLE_ESCAPES[c];
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte.toString(8).padStart(3, '0')}`;
    else out += c;
  }
  return `${out}"`;
}

const PREFIX: Record<1 | 2, Record<Kind, string[]>> = {
  1: { added: ['+'], kept: [' '], removed: ['-'] },
  2: { added: ['++'], kept: [' +', '+ '], removed: ['--', '- ', ' -'] },
};

/** The diff text of a history; `pick` chooses among equivalent prefixes so every spelling is seen. */
function render(commits: readonly Commit[]): string {
  let out = '';
  let n = 0;
  const pick = (options: string[]) => options[n++ % options.length]!;
  for (const c of commits) {
    out += `\x01${c.sha}\x1f${c.author}\x1f${c.date}\n\n`;
    for (const f of c.files) {
      const quotedNew = gitPath('b/', f.path);
      if (f.columns === 1)
        out += `diff --git ${gitPath('a/', f.path)} ${quotedNew}\nindex 1234567..89abcde 100644\n`;
      else out += `diff --cc ${gitPath('', f.path).replace(/\t$/, '')}\nindex 1234567,89abcde..0000000\n`;
      out += `--- ${gitPath('a/', f.path)}\n+++ ${f.deleted ? '/dev/null' : quotedNew}\n`;
      const ats = '@'.repeat(f.columns + 1);
      for (const h of f.hunks) {
        const removed = h.lines.filter((l) => l.kind === 'removed').length;
        const added = h.lines.length - removed;
        const olds = Array.from({ length: f.columns }, () => ` -${h.newStart},${removed}`).join('');
        out += `${ats}${olds} +${h.newStart},${added} ${ats} context\n`;
        for (const l of h.lines) out += `${pick(PREFIX[f.columns][l.kind])}${l.text}\n`;
      }
      if (f.hunks.length > 0) out += '\\ No newline at end of file\n';
    }
  }
  return out;
}

/** The candidate lines the model says the parser must report, given which texts the prefilter hits. */
function expected(commits: readonly Commit[], hit: (text: string) => boolean): Reported[] {
  const out: Reported[] = [];
  for (const c of commits) {
    for (const f of c.files) {
      if (f.deleted) continue;
      for (const h of f.hunks) {
        let lineNo = h.newStart;
        for (const l of h.lines) {
          if (l.kind === 'removed') continue;
          if (l.kind === 'added' && hit(l.text)) {
            out.push({ sha: c.sha, path: f.path, lineNo, text: l.text.replace(/\r$/, '') });
          }
          lineNo++;
        }
      }
    }
  }
  return out;
}

describe('DiffStreamParser, properties', () => {
  it('never throws on arbitrary bytes, in any chunks', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), chunkSizes, (bytes, sizes) => {
        const reported = parse(Buffer.from(bytes), ANYTHING(), sizes);
        for (const r of reported) {
          expect(typeof r.path).toBe('string');
          expect(r.text).not.toContain('\n');
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on arbitrary text made of diff-like lines', () => {
    const diffish = fc.oneof(
      fc.constantFrom('\x01', '@@', '@@@', '@@ -1,0 +', '+++ ', '+++ b/', '--- a/x', 'diff --git a/x b/x'),
      fc.constantFrom('+', '-', ' ', '++', '\\', '"', '\\3', '\t', '\r', '\x1f', '+++ "b/\\', '@@ -1 +x @@'),
      fc.string({ unit: 'binary', maxLength: 8 }),
    );
    const text = fc.array(
      fc.array(diffish, { maxLength: 6 }).map((p) => p.join('')),
      { maxLength: 40 },
    );
    fc.assert(
      fc.property(text, chunkSizes, (lines, sizes) => {
        parse(Buffer.from(lines.join('\n')), ANYTHING(), sizes);
        parse(Buffer.from(lines.join('\r\n')), KEYWORD(), sizes);
      }),
      { numRuns: 500 },
    );
  });

  it('reports every added line of a well-formed diff with its path and new-file line number', () => {
    fc.assert(
      fc.property(history, chunkSizes, (commits, sizes) => {
        const bytes = Buffer.from(render(commits));
        expect(parse(bytes, ANYTHING(), sizes)).toEqual(expected(commits, (t) => t !== ''));
      }),
      { numRuns: 500 },
    );
  });

  it('reports exactly the added lines the prefilter hits', () => {
    fc.assert(
      fc.property(history, chunkSizes, (commits, sizes) => {
        const bytes = Buffer.from(render(commits));
        expect(parse(bytes, KEYWORD(), sizes)).toEqual(expected(commits, (t) => t.includes('KEY')));
      }),
      { numRuns: 500 },
    );
  });

  it('gives the same answer for any chunk boundaries', () => {
    fc.assert(
      fc.property(history, chunkSizes, (commits, sizes) => {
        const bytes = Buffer.from(render(commits));
        expect(parse(bytes, ANYTHING(), sizes)).toEqual(parse(bytes, ANYTHING()));
      }),
      { numRuns: 300 },
    );
  });

  it('is not thrown off by lines that are no diff syntax, wherever they stand', () => {
    // Not a commit mark, hunk header, `diff` line or content prefix: the parser passes over them.
    const noise = fc
      .string({ unit: 'grapheme', maxLength: 20 })
      .map((s) => s.replace(/\n/g, ''))
      .filter((s) => !/^[\x01@+\- ]/.test(s) && !s.startsWith('diff '));
    fc.assert(
      fc.property(history, fc.array(fc.tuple(fc.nat(), noise), { maxLength: 10 }), (commits, inserts) => {
        const text = render(commits);
        const lines = text.split('\n');
        // The first line stays first: before it, noise has no commit to belong to anyway.
        for (const [at, line] of inserts) lines.splice(1 + (at % lines.length), 0, line);
        expect(parse(Buffer.from(lines.join('\n')), ANYTHING())).toEqual(
          parse(Buffer.from(text), ANYTHING()),
        );
      }),
      { numRuns: 300 },
    );
  });
  it('keeps line numbers right past a line longer than the 1 MiB segment, and finds its keyword', () => {
    const MIB = 1 << 20;
    fc.assert(
      fc.property(
        fc.integer({ min: MIB + 1, max: 2 * MIB }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 100 }),
        fc.constantFrom(4096, 65536, 3 * MIB),
        (length, where, newStart, chunk) => {
          const at = Math.floor(where * (length - 3));
          const long = `${'x'.repeat(at)}KEY${'y'.repeat(length - 3 - at)}`;
          const commits: Commit[] = [
            {
              sha: 'a'.repeat(40),
              author: 'ada',
              date: '2024-01-02T03:04:05+00:00',
              files: [
                {
                  path: 'big.txt',
                  columns: 1,
                  deleted: false,
                  hunks: [
                    {
                      newStart,
                      lines: [
                        { kind: 'added', text: 'KEY before' },
                        { kind: 'added', text: long },
                        { kind: 'added', text: 'KEY after' },
                      ],
                    },
                  ],
                },
              ],
            },
          ];
          const reported = parse(Buffer.from(render(commits)), KEYWORD(), [chunk]);
          // The long line is reported in segments, each holding what the prefilter hit.
          const longLine = reported.filter((r) => r.lineNo === newStart + 1);
          expect(longLine.length).toBeGreaterThan(0);
          for (const r of longLine) expect(r.text).toContain('KEY');
          expect(reported.filter((r) => r.lineNo !== newStart + 1)).toEqual([
            { sha: 'a'.repeat(40), path: 'big.txt', lineNo: newStart, text: 'KEY before' },
            { sha: 'a'.repeat(40), path: 'big.txt', lineNo: newStart + 2, text: 'KEY after' },
          ]);
        },
      ),
      { numRuns: 20 },
    );
  });
});
