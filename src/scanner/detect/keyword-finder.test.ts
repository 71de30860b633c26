import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeywordFinder } from './keyword-finder.js';
import { PREFILTER, prefilterKeywords } from './prefilter.js';

const root = join(import.meta.dirname, '..', '..', '..');

/** What the hot loop's regex answers: the first position in buf[from, to) where a keyword starts. */
function byRegex(buf: Buffer, from: number, to: number): number {
  const regex = new RegExp(PREFILTER.source, 'gi');
  const match = regex.exec(buf.toString('latin1', from, to));
  return match === null ? -1 : from + match.index;
}

const keywords = prefilterKeywords();
const randomCase = (word: string, flips: boolean[]) =>
  [...word].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c)).join('');

/**
 * Bytes made of keywords (in mixed case, often cut short or with one byte changed), bytes that sit
 * next to letters in ASCII or fold to them elsewhere (`@[`{` and Latin-1 letters), and random bytes.
 */
const contents = fc
  .array(
    fc.oneof(
      fc
        .tuple(
          fc.constantFrom(...keywords),
          fc.array(fc.boolean(), { minLength: 1 }),
          fc.nat(20),
          fc.nat(255),
        )
        .map(([word, flips, cut, byte]) => {
          const cased = Buffer.from(randomCase(word, flips), 'latin1');
          if (cut < word.length) return cased.subarray(0, cut); // cut short
          if (cut < 2 * word.length) cased[cut - word.length] = byte; // one byte changed
          return cased;
        }),
      fc.constantFrom(
        ...['@', '[', '`', '{', '\n', ' ', '_', '-', 'Ô', 'ó', 'ÿ', 'µ'].map((c) => Buffer.from(c, 'latin1')),
      ),
      fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
    ),
    { maxLength: 60 },
  )
  .map((parts) => Buffer.concat(parts));

describe('KeywordFinder', () => {
  it('is built from keyword-finder.wat as it stands (npm run build:wasm)', () => {
    execFileSync(process.execPath, [join(root, 'build', 'build-wasm.mjs'), '--check'], { stdio: 'pipe' });
  });

  it('finds the same first keyword as the regex, in its room and outside it', () => {
    const finder = new KeywordFinder(16384);
    fc.assert(
      fc.property(contents, fc.nat(), fc.nat(), fc.nat(64), (bytes, a, b, offset) => {
        const from = bytes.length === 0 ? 0 : a % bytes.length;
        const to = from + (bytes.length === from ? 0 : b % (bytes.length - from + 1));
        const expected = byRegex(bytes, from, to);
        expect(finder.find(bytes, from, to)).toBe(expected);
        // In the room, at any alignment, with other bytes right after `to` that must not count.
        const inRoom = finder.room.subarray(offset, offset + bytes.length);
        bytes.copy(inRoom);
        finder.room.fill('token', offset + to, Math.min(finder.room.length, offset + to + 40), 'latin1');
        expect(finder.find(inRoom, from, to)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('finds a keyword across the pieces it copies a long outside buffer in', () => {
    const finder = new KeywordFinder();
    const piece = 64 << 10;
    for (const at of [
      0,
      piece - 13,
      piece - 12,
      piece - 4,
      piece - 1,
      piece,
      3 * piece - 20,
      5 * piece - 6,
    ]) {
      const bytes = Buffer.alloc(5 * piece, 'x = 1;\n');
      bytes.write('codehost_pat_', at, 'latin1'); // the longest keyword
      const whole = at + 13 <= bytes.length;
      expect(finder.find(bytes, 0, bytes.length)).toBe(whole ? at : -1);
      expect(byRegex(bytes, 0, bytes.length)).toBe(whole ? at : -1);
      expect(finder.find(bytes, at + 1, bytes.length)).toBe(byRegex(bytes, at + 1, bytes.length));
    }
  });

  it('takes only keywords that end by `to`', () => {
    const finder = new KeywordFinder(64);
    const bytes = finder.room.subarray(0, 20);
    bytes.fill(' ');
    bytes.write('SeCrEt', 5, 'latin1');
    expect(finder.find(bytes, 0, 11)).toBe(5);
    expect(finder.find(bytes, 0, 10)).toBe(-1);
    expect(finder.find(bytes, 6, 20)).toBe(-1);
    expect(finder.find(bytes, 5, 5)).toBe(-1);
  });

  it('falls back to a regex for keywords the SIMD filter cannot take, with the same answers', () => {
    const short = new KeywordFinder(0, ['ab', 'token']);
    expect(short.find(Buffer.from('xx AB token'), 0, 11)).toBe(3);
    expect(short.find(Buffer.from('xx a-b tok'), 0, 10)).toBe(-1);
  });
});

/** Two versions of a text: `a`, and `b` made from it by a few edits (so they share long runs). */
const versions = fc
  .tuple(
    fc.array(fc.constantFrom('a', 'b', '\n', 'xyz', 'line of code;\n', 'é'), { maxLength: 300 }),
    fc.array(fc.tuple(fc.nat(300), fc.nat(5), fc.constantFrom('', 'q', 'edit\n', 'a')), { maxLength: 4 }),
  )
  .map(([parts, edits]) => {
    const a = parts.join('');
    let b = a;
    for (const [at, cut, text] of edits) {
      const p = Math.min(at, b.length);
      b = b.slice(0, p) + text + b.slice(p + cut);
    }
    return [Buffer.from(a, 'latin1'), Buffer.from(b, 'latin1')] as const;
  });

describe('KeywordFinder: counting and finding bytes in its memory', () => {
  /** `a` and `b` written into the finder's room (b at an odd place, so loads are unaligned). */
  function inRoom(finder: KeywordFinder, a: Buffer, b: Buffer): [Buffer, Buffer] {
    const inA = finder.room.subarray(0, a.length);
    const inB = finder.room.subarray(a.length + 7, a.length + 7 + b.length);
    a.copy(inA);
    b.copy(inB);
    return [inA, inB];
  }

  it('counts the bytes two stretches share from their start and back from their end as a byte loop does', () => {
    const finder = new KeywordFinder(16384);
    fc.assert(
      fc.property(versions, fc.nat(400), fc.nat(400), ([a, b], i, j) => {
        const [inA, inB] = inRoom(finder, a, b);
        const ai = Math.min(i, a.length);
        const bi = Math.min(j, b.length);
        const forwardRoom = Math.min(a.length - ai, b.length - bi);
        let forward = 0;
        while (forward < forwardRoom && a[ai + forward] === b[bi + forward]) forward++;
        expect(finder.sharedForward(inB, bi, inA, ai, forwardRoom)).toBe(forward);
        const backwardRoom = Math.min(ai, bi);
        let backward = 0;
        while (backward < backwardRoom && a[ai - 1 - backward] === b[bi - 1 - backward]) backward++;
        expect(finder.sharedBackward(inB, bi, inA, ai, backwardRoom)).toBe(backward);
      }),
    );
  });

  it('finds a stretch where Buffer.indexOf does, within the bounds it is given', () => {
    const finder = new KeywordFinder(16384);
    fc.assert(
      fc.property(
        versions,
        fc.nat(400),
        fc.integer({ min: 1, max: 60 }),
        fc.nat(400),
        ([a, b], at, n, from) => {
          const [inA, inB] = inRoom(finder, a, b);
          const start = Math.min(at, Math.max(0, b.length - 1));
          const needle = inB.subarray(start, Math.min(b.length, start + n));
          fc.pre(needle.length > 0);
          const lo = Math.min(from, a.length);
          for (const to of [a.length, Math.max(lo, a.length - 3)]) {
            let expected = inA.subarray(0, to).indexOf(needle, lo);
            if (expected + needle.length > to) expected = -1;
            expect(finder.indexIn(inA, needle, lo, to)).toBe(expected);
          }
        },
      ),
    );
  });

  it('leaves buffers outside its memory to the caller', () => {
    const finder = new KeywordFinder(64);
    const outside = Buffer.from('abc');
    expect(finder.sharedForward(outside, 0, finder.room, 0, 3)).toBeNull();
    expect(finder.sharedBackward(finder.room, 3, outside, 3, 3)).toBeNull();
    expect(finder.indexIn(outside, finder.room.subarray(0, 1), 0, 3)).toBeNull();
  });
});
