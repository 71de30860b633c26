import { describe, expect, it } from 'vitest';
import { bearerToken, generateApiKey, hashApiKey, looksLikeApiKey } from './api-keys.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

describe('generateApiKey', () => {
  it('makes svc_ + 40 base62 characters, a 12-character prefix and the SHA-256 of the key', () => {
    const { key, prefix, hash } = generateApiKey();
    expect(key).toMatch(/^svc_[0-9A-Za-z]{40}$/);
    expect(prefix).toBe(key.slice(0, 12));
    expect(prefix).toMatch(/^svc_[0-9A-Za-z]{8}$/);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(hashApiKey(key));
    expect(looksLikeApiKey(key)).toBe(true);
  });

  it('never repeats a key over many', () => {
    const keys = new Set(Array.from({ length: 10_000 }, () => generateApiKey().key));
    expect(keys.size).toBe(10_000);
  });

  it('draws every base62 character, evenly (no modulo bias)', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 5000; i++) {
      for (const c of generateApiKey().key.slice(4)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect([...counts.keys()].sort().join('')).toBe([...BASE62].sort().join(''));
    // A plain `byte % 62` favours the first 256 % 62 = 8 characters by 5:4; sampling without bias
    // keeps them level with the rest (200,000 draws: the means differ by well under 5%).
    const mean = (chars: string) => [...chars].reduce((sum, c) => sum + counts.get(c)!, 0) / chars.length;
    const ratio = mean(BASE62.slice(0, 8)) / mean(BASE62.slice(8));
    expect(ratio).toBeGreaterThan(0.95);
    expect(ratio).toBeLessThan(1.05);
  });
});

describe('hashApiKey', () => {
  it('is stable and is the SHA-256 hex of the whole key', () => {
    const key = 'svc_0123456789abcdefghijABCDEFGHIJ0123456789';
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashApiKey(key)).not.toBe(hashApiKey(`${key}x`));
  });
});

describe('looksLikeApiKey', () => {
  it.each([
    ['svc_' + 'a'.repeat(32), true],
    ['svc_' + 'aZ9'.repeat(20), true],
    ['svc_' + 'a'.repeat(31), false],
    ['SVC_' + 'a'.repeat(40), false],
    ['svc-' + 'a'.repeat(40), false],
    ['svc_' + 'a'.repeat(39) + '_', false],
    [' svc_' + 'a'.repeat(40), false],
    ['svc_' + 'a'.repeat(40) + '\n', false],
    ['', false],
  ])('%j → %s', (s, expected) => {
    expect(looksLikeApiKey(s)).toBe(expected);
  });
});

describe('bearerToken', () => {
  it.each([
    ['Bearer svc_abc', 'svc_abc'],
    ['bearer svc_abc', 'svc_abc'],
    ['BEARER svc_abc', 'svc_abc'],
    ['  Bearer   svc_abc  ', 'svc_abc'],
    ['Bearer\tsvc_abc', 'svc_abc'],
    [undefined, null],
    ['', null],
    ['Bearer', null],
    ['Bearer ', null],
    ['Basic dXNlcjpwYXNz', null],
    ['svc_abc', null],
    ['Bearersvc_abc', null],
    ['Bearer svc_abc extra', null],
  ])('%j → %j', (header, expected) => {
    expect(bearerToken(header)).toBe(expected);
  });
});
