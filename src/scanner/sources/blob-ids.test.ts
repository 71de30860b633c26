import { createHash } from 'node:crypto';
import { readdirSync, readlinkSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BlobIds } from './blob-ids.js';

const sha1 = (n: number) => createHash('sha1').update(String(n)).digest('hex');

describe('BlobIds', () => {
  it('numbers ids in the order first seen and finds them again', () => {
    const ids = new BlobIds();
    const count = 20_000; // past several rehashes and buffer growths
    for (let n = 0; n < count; n++) expect(ids.intern(sha1(n))).toBe(n);
    for (let n = 0; n < count; n += 7) expect(ids.intern(sha1(n))).toBe(n);
    expect(ids.size).toBe(count);
    for (let n = 0; n < count; n += 13) expect(ids.find(sha1(n))).toBe(n);
    expect(ids.find(sha1(count))).toBe(-1);
    expect(ids.spilled).toBe(0);
  });

  it('tells apart ids that share their first bytes (the table hashes on them)', () => {
    const ids = new BlobIds();
    const a = `${'ab'.repeat(12)}${'0'.repeat(16)}`;
    const b = `${'ab'.repeat(12)}${'0'.repeat(15)}1`;
    expect(ids.intern(a)).toBe(0);
    expect(ids.intern(b)).toBe(1);
    expect(ids.find(a)).toBe(0);
    expect(ids.find(b)).toBe(1);
  });

  it('takes SHA-256 ids, and finds nothing for what is not an id of the repository', () => {
    const ids = new BlobIds();
    const long = createHash('sha256').update('x').digest('hex');
    expect(ids.intern(long)).toBe(0);
    expect(ids.find(long)).toBe(0);
    expect(ids.find(sha1(1))).toBe(-1);
    expect(ids.find('z'.repeat(64))).toBe(-1);
    expect(() => ids.intern('not hex')).toThrow();
  });

  describe('past its memory limit', () => {
    it('answers as a table that holds every id in memory (property)', () => {
      // Ids drawn from a small space, so that many come back after they went to the file; a limit of
      // a few ids, so that there are many runs, some of one block and some of several.
      const ops = fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 600 })), {
        minLength: 100,
        maxLength: 1500,
      });
      let spilled = 0;
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 300 }), ops, (limit, steps) => {
          const ids = new BlobIds(limit);
          const expected = new Map<string, number>();
          try {
            for (const [interning, n] of steps) {
              const id = sha1(n);
              if (interning) {
                const index = ids.intern(id);
                if (!expected.has(id)) expected.set(id, expected.size);
                expect(index).toBe(expected.get(id));
              } else {
                expect(ids.find(id)).toBe(expected.get(id) ?? -1);
              }
            }
            expect(ids.size).toBe(expected.size);
            for (const [id, index] of expected) expect(ids.find(id)).toBe(index);
            spilled += ids.spilled;
          } finally {
            ids.close();
          }
        }),
        { numRuns: 200 },
      );
      expect(spilled).toBeGreaterThan(0);
    });

    it('tells apart ids that share their first four or eight bytes, in memory and in the file', () => {
      // The spill sorts on the first four bytes and then on the whole id; the filter probes bytes 4-11.
      const ids = new BlobIds(3);
      const made = Array.from({ length: 40 }, (_, n) => {
        const tail = createHash('sha1').update(String(n)).digest('hex').slice(0, 24);
        return n % 2 === 0
          ? `${'ab'.repeat(4)}${tail}${'0'.repeat(8)}`
          : `${'ab'.repeat(8)}${tail.slice(8)}${'1'.repeat(8)}`;
      });
      expect(made.map((id) => ids.intern(id))).toEqual(made.map((_, n) => n));
      expect(ids.spilled).toBeGreaterThan(30);
      expect(made.map((id) => ids.find(id))).toEqual(made.map((_, n) => n));
      expect(ids.find(`${'ab'.repeat(8)}${'0'.repeat(24)}`)).toBe(-1);
      expect(ids.find('00'.repeat(20))).toBe(-1);
      expect(ids.find('ff'.repeat(20))).toBe(-1);
      ids.close();
    });

    it('holds at most its limit in memory, in a file already unlinked, let go at close', () => {
      const spillFiles = () =>
        readdirSync('/proc/self/fd')
          .map((fd) => {
            try {
              return readlinkSync(`/proc/self/fd/${fd}`);
            } catch {
              return ''; // the listing's own descriptor, closed by now
            }
          })
          .filter((file) => file.includes('svc-ids-'));
      const before = spillFiles().length;
      const ids = new BlobIds(1000);
      const count = 10_000;
      for (let n = 0; n < count; n++) ids.intern(sha1(n));
      expect(ids.spilled).toBe(9000);
      const opened = spillFiles();
      expect(opened.length).toBe(before + 1);
      expect(opened.at(-1)).toMatch(/ \(deleted\)$/);
      for (let n = 0; n < count; n += 17) expect(ids.find(sha1(n))).toBe(n);
      ids.close();
      expect(spillFiles().length).toBe(before);
    });

    it('refuses a limit below one', () => {
      expect(() => new BlobIds(0)).toThrow(/at least 1/);
    });
  });
});
