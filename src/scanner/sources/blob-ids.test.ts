import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BlobIds } from './blob-ids.js';

const sha1 = (n: number) => createHash('sha1').update(String(n)).digest('hex');

describe('BlobIds', () => {
  it('numbers ids in the order first seen, finds them again, and gives each back whole', () => {
    const ids = new BlobIds();
    const count = 20_000; // past several rehashes and buffer growths
    for (let n = 0; n < count; n++) expect(ids.intern(sha1(n))).toBe(n);
    for (let n = 0; n < count; n += 7) expect(ids.intern(sha1(n))).toBe(n);
    expect(ids.size).toBe(count);
    for (let n = 0; n < count; n += 13) {
      expect(ids.find(sha1(n))).toBe(n);
      expect(ids.idOf(n)).toBe(sha1(n));
    }
    expect(ids.find(sha1(count))).toBe(-1);
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
});
