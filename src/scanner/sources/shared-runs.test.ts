import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fakeCloudKeyId, fakeCodehostToken } from '../../../test/helpers/fake-secrets.js';
import { KeywordFinder } from '../detect/keyword-finder.js';
import { changedRegion, DetectionLineGate } from './blob-gate.js';
import { sharedRuns } from './shared-runs.js';

const NL = 0x0a;
const text = (lines: string[], finalNewline = true) =>
  Buffer.from(lines.join('\n') + (finalNewline && lines.length > 0 ? '\n' : ''));

/** Each run is whole lines of b that are whole lines of a, in order and apart. */
function expectValidRuns(b: Buffer, bFrom: number, bTo: number, a: Buffer, aFrom: number, aTo: number) {
  const runs = sharedRuns(b, bFrom, bTo, a, aFrom, aTo);
  let last = bFrom;
  for (const run of runs) {
    const aEnd = run.aStart + (run.bEnd - run.bStart);
    expect(run.bStart).toBeGreaterThanOrEqual(last);
    expect(run.bEnd).toBeGreaterThan(run.bStart);
    expect(run.bEnd).toBeLessThanOrEqual(bTo);
    expect(run.aStart).toBeGreaterThanOrEqual(aFrom);
    expect(aEnd).toBeLessThanOrEqual(aTo);
    expect(b.subarray(run.bStart, run.bEnd).equals(a.subarray(run.aStart, aEnd))).toBe(true);
    // Starts a line in both (or both parts), ends one in both (or both parts).
    expect(run.bStart === bFrom || b[run.bStart - 1] === NL).toBe(true);
    expect(run.aStart === aFrom || a[run.aStart - 1] === NL).toBe(true);
    expect(b[run.bEnd - 1] === NL || (run.bEnd === bTo && aEnd === aTo)).toBe(true);
    last = run.bEnd;
  }
  return runs;
}

const codeLine = (i: number) =>
  `  const value${i} = compute(${i}, 'some words to make the line long enough');`;

describe('sharedRuns', () => {
  it('covers all but the edits of a long file edited in three far-apart places', () => {
    const a = Array.from({ length: 3000 }, (_, i) => codeLine(i));
    const b = [...a];
    b.splice(2500, 2, 'edit three');
    b.splice(1500, 0, 'edit two a', 'edit two b');
    b[10] = 'edit one';
    const [ba, bb] = [text(a), text(b)];
    const [from, to] = changedRegion(bb, ba);
    const runs = expectValidRuns(bb, from, to, ba, from, to - (bb.length - ba.length));
    const shared = runs.reduce((sum, run) => sum + run.bEnd - run.bStart, 0);
    const unshared = to - from - shared;
    // The region is most of the file; what is left unshared is the edits and a few lines around.
    expect(to - from).toBeGreaterThan(bb.length / 2);
    expect(unshared).toBeLessThan(2048);
  });

  it('finds nothing to share between unrelated contents or tiny parts', () => {
    const a = text(Array.from({ length: 200 }, (_, i) => codeLine(i)));
    const b = text(Array.from({ length: 200 }, (_, i) => `other ${codeLine(i)}`));
    expect(sharedRuns(b, 0, b.length, a, 0, a.length)).toEqual([]);
    expect(sharedRuns(a, 0, 100, a, 0, 100)).toEqual([]);
  });

  it('never takes a line of b for a line of a that only ends the same', () => {
    // Each probe line is the tail of a longer line in a: a match there is not a whole line of a.
    const tail = codeLine(7);
    const a = text(Array.from({ length: 100 }, (_, i) => `${i}${tail}`));
    const b = text(Array.from({ length: 100 }, () => tail));
    expect(sharedRuns(b, 0, b.length, a, 0, a.length)).toEqual([]);
  });

  it('holds its runs to whole, equal lines on random edits (property)', () => {
    const finder = new KeywordFinder(1 << 20);
    const line = fc.oneof(
      fc.constantFrom('', '}', 'x', 'same line', codeLine(1), codeLine(2)),
      fc.integer({ min: 0, max: 400 }).map(codeLine),
    );
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 300 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(4), fc.array(line, { maxLength: 5 })), { maxLength: 6 }),
        fc.boolean(),
        fc.boolean(),
        (lines, edits, aNewline, bNewline) => {
          const edited = [...lines];
          for (const [at, remove, insert] of edits)
            edited.splice(at % (edited.length + 1), remove, ...insert);
          const a = text(lines, aNewline);
          const b = text(edited, bNewline);
          const [from, to] = changedRegion(b, a);
          expectValidRuns(b, from, to, a, from, to - (b.length - a.length));
          expectValidRuns(b, 0, b.length, a, 0, a.length);
          // Counted in place, in a keyword finder's memory (WebAssembly), the answers are the same.
          const inA = finder.room.subarray(0, a.length);
          const inB = finder.room.subarray(a.length + 3, a.length + 3 + b.length);
          a.copy(inA);
          b.copy(inB);
          expect(changedRegion(inB, inA, finder)).toEqual([from, to]);
          const baseTo = to - (b.length - a.length);
          expect(sharedRuns(inB, from, to, inA, from, baseTo, finder)).toEqual(
            sharedRuns(b, from, to, a, from, baseTo),
          );
          expect(sharedRuns(inB, 0, b.length, inA, 0, a.length, finder)).toEqual(
            sharedRuns(b, 0, b.length, a, 0, a.length),
          );
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('DetectionLineGate.detectionLinesSharing', () => {
  const gate = new DetectionLineGate();
  const all = (blob: Buffer) => {
    const out: number[] = [];
    gate.detectionLines(blob, 0, blob.length, out);
    return out;
  };

  it('finds every detection line of the new version, shared or not, as a whole scan does (property)', () => {
    const secrets = [
      `aws_key = "${fakeCloudKeyId(11)}"`,
      `token: ${fakeCodehostToken(12)}`,
      `key = "${fakeCloudKeyId(13)}"\r`,
    ];
    const line = fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 0, max: 300 }).map(codeLine) },
      { weight: 2, arbitrary: fc.constantFrom('', '}', 'const tokenizer = 1;') },
      { weight: 1, arbitrary: fc.constantFrom(...secrets) },
    );
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 400 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(4), fc.array(line, { maxLength: 5 })), { maxLength: 6 }),
        fc.boolean(),
        (lines, edits, finalNewline) => {
          const edited = [...lines];
          for (const [at, remove, insert] of edits)
            edited.splice(at % (edited.length + 1), remove, ...insert);
          const a = text(lines);
          const b = text(edited, finalNewline);
          const [from, to] = changedRegion(b, a);
          expect(gate.detectionLinesSharing(b, from, to, a, all(a))).toEqual(all(b));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('lists each detection line once, at its start, in a whole scan, long lines as scan reads them', () => {
    const secret = `aws_key = "${fakeCloudKeyId(11)}"`;
    const blob = text(['x', secret, 'y', secret]);
    expect(all(blob)).toEqual([2, blob.lastIndexOf(secret)]);
    // Over a piece (64 KB) but under the long-line limit: its rules still run.
    const wide = text(['a', `${'x'.repeat(100_000)} ${secret}`, 'b']);
    expect(all(wide)).toEqual([2]);
    // Over the limit: a keyword alone makes it one, as in scan.
    const long = 'x'.repeat(1_500_000);
    expect(all(text(['a', `${long}token${long}`]))).toEqual([2]);
    expect(all(text([long, 'ok']))).toEqual([]);
    for (const sample of [blob, wide, text([long, 'ok'])])
      expect(all(sample).length > 0).toBe(gate.scan(sample));
  });
});
