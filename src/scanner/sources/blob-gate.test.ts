import { describe, expect, it } from 'vitest';
import { fakeCloudKeyId } from '../../../test/helpers/fake-secrets.js';
import { changedRegion, DetectionLineGate } from './blob-gate.js';

const lines = (...l: string[]) => Buffer.from(`${l.join('\n')}\n`);
const region = (blob: Buffer, reference: Buffer) => {
  const [from, to] = changedRegion(blob, reference);
  return blob.toString('latin1', from, to);
};
const SECRET = `key = "${fakeCloudKeyId(90)}"`;

describe('changedRegion', () => {
  it('keeps the whole lines between the first and the last difference', () => {
    const before = lines('a', 'b', 'c', 'd', 'e');
    expect(region(lines('a', 'b', 'X', 'd', 'e'), before)).toBe('X\n');
    expect(region(lines('a', 'bX', 'c', 'd', 'e'), before)).toBe('bX\n');
    expect(region(lines('a', 'X', 'c', 'Y', 'e'), before)).toBe('X\nc\nY\n');
    expect(region(lines('a', 'b', 'c', 'd', 'e', 'f'), before)).toBe('f\n');
    // The first line of the common end is kept too: nothing before it proves it starts a line there.
    expect(region(lines('z', 'a', 'b', 'c', 'd', 'e'), before)).toBe('z\na\n');
    expect(region(before, before)).toBe('');
  });

  it('keeps a line that starts where the common end begins (its start may differ)', () => {
    // "b\nc\n" ends both; the line "c" in the new blob follows a changed byte.
    expect(region(Buffer.from('a\nXc\n'), Buffer.from('a\nc\n'))).toBe('Xc\n');
    expect(region(Buffer.from('a\nb'), Buffer.from('a\nb\n'))).toBe('b');
    // A duplicated block: the copy git may call added is inside the region.
    expect(region(lines('x', SECRET, 'x', SECRET), lines('x', SECRET))).toBe(`x\n${SECRET}\n`);
  });

  it('works across the block size of its fast comparison', () => {
    const long = Array.from({ length: 2000 }, (_, i) => `line ${i}`);
    const edited = [...long];
    edited[1000] = 'changed';
    expect(region(lines(...edited), lines(...long))).toBe('changed\n');
  });
});

describe('DetectionLineGate', () => {
  const gate = new DetectionLineGate();

  it('finds a line where a rule matches, not one where only a keyword does', () => {
    expect(gate.scan(lines('const tokenizer = 1;', 'x'))).toBe(false);
    expect(gate.scan(lines('x', SECRET, 'y'))).toBe(true);
    expect(gate.scan(Buffer.from(`x\r\n${SECRET}\r\n`))).toBe(true);
  });

  it('reads a blob fed in pieces that cut lines anywhere', () => {
    const blob = lines('a'.repeat(100), SECRET, 'b');
    for (const cut of [1, 50, 101, 105, 120]) {
      gate.reset();
      gate.push(blob.subarray(0, cut));
      gate.push(blob.subarray(cut));
      expect(gate.end()).toBe(true);
    }
  });

  it('counts an over-long line with a keyword as a detection line, and one without as clean', () => {
    const long = 'x'.repeat(1_500_000);
    expect(gate.scan(lines(`${long}token${long}`))).toBe(true);
    expect(gate.scan(lines(long, 'ok'))).toBe(false);
  });
});
