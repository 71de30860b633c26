import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIgnoreFile } from './ignore.js';
import { ignoreLineOf } from './ignore-line.js';

/**
 * A fingerprint, `<rule>:<commit 12>:<path>:<line>`, with a path of any characters git allows (all but
 * NUL): tabs, newlines, quotes, backslashes, bidi marks, a leading `#`, surrounding spaces.
 */
const fingerprint = fc
  .record({
    rule: fc.constantFrom('cloud-access-key-id', 'generic-secret', 'private-key', 'codehost-token'),
    commit: fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 12, maxLength: 12 }),
    path: fc.oneof(
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
      fc.constantFrom('#notes.env', '  spaced.env  ', 'cfg/"q\t".env', 'cfg\\a\tb.env', 'a\u202eb.env'),
    ),
    line: fc.integer({ min: 1, max: 100_000 }),
  })
  .filter(({ path }) => !path.includes('\0'))
  .map(({ rule, commit, path, line }) => `${rule}:${commit}:${path}:${line}`);

/** Lines that list nothing: comments, blank lines, and quoted lines that are no valid JSON string. */
const nothingLine = fc.oneof(
  fc.string({ maxLength: 20 }).map((s) => `#${s.replace(/[\r\n]/g, '')}`),
  fc.constantFrom('', ' ', '\t', '  \t ', '# accepted', '#', '\u00a0', '\ufeff'),
  fc
    .string({ maxLength: 20 })
    .map((s) => `"${s.replace(/[\r\n]/g, '')}`)
    .filter((s) => {
      try {
        return typeof JSON.parse(s.trim()) !== 'string';
      } catch {
        return true;
      }
    }),
  fc.constantFrom('"unterminated', '"bad \\q escape"', '"a" "b"', '"\t"', '"raw\u0001control"'),
);

/** White space a hand-edited file may put around a line; trimmed away. */
const padding = fc.constantFrom('', ' ', '\t', '  ', ' \t');

/** A file: fingerprints written as the reports print them, mixed with lines listing nothing. */
const ignoreFile = fc
  .array(
    fc.oneof(
      fingerprint.chain((fp) =>
        fc
          .tuple(padding, padding)
          .map(([before, after]) => ({ fp, line: before + ignoreLineOf(fp) + after })),
      ),
      nothingLine.map((line) => ({ fp: null, line })),
    ),
    { maxLength: 20 },
  )
  .map((entries) => ({
    text: entries.map((e) => e.line).join('\n'),
    fingerprints: entries.flatMap((e) => (e.fp === null ? [] : [e.fp])),
  }));

describe('parseIgnoreFile, properties', () => {
  it('never throws on any text, and lists only non-empty fingerprints', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        for (const fp of parseIgnoreFile(text)) {
          expect(typeof fp).toBe('string');
          expect(fp).not.toBe('');
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('reads exactly the fingerprints of a file of ignore lines, comments, blanks and broken lines', () => {
    fc.assert(
      fc.property(ignoreFile, ({ text, fingerprints }) => {
        expect(parseIgnoreFile(text)).toEqual(new Set(fingerprints));
      }),
      { numRuns: 1000 },
    );
  });

  it('reads a CRLF file as its LF form, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          ignoreFile.map((f) => f.text),
          fc.string({ unit: 'binary', maxLength: 200 }),
        ),
        (text) => {
          expect(parseIgnoreFile(text.replace(/\n/g, '\r\n'))).toEqual(parseIgnoreFile(text));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('does not depend on a final newline or on the order of its lines', () => {
    fc.assert(
      fc.property(ignoreFile, ({ text }) => {
        const lines = text.split('\n');
        expect(parseIgnoreFile(`${text}\n`)).toEqual(parseIgnoreFile(text));
        expect(parseIgnoreFile([...lines].reverse().join('\n'))).toEqual(parseIgnoreFile(text));
      }),
      { numRuns: 500 },
    );
  });
});
