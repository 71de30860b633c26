import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, redisAvailable } from '../../test/helpers/databases.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';

/** A client address no other test run uses, so counters shared in Redis never collide. */
const freshIp = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

async function statuses(
  t: TestApp,
  count: number,
  init: Parameters<TestApp['request']>[1],
  path = '/api/account',
) {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push((await t.request(path, init)).status);
  return out;
}

describe('rate limits per client IP per minute, in memory', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp();
    key = await t.userWithKey('rl@example.test', 'paid');
  });
  afterAll(() => t.cleanup());

  it('lets 300 API requests a minute through, and answers the 301st with 429 and Retry-After', async () => {
    const ip = freshIp();
    const first = await statuses(t, 300, { key, ip });
    expect(first.every((s) => s === 200)).toBe(true);
    const over = await t.request('/api/account', { key, ip });
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({
      error: expect.stringMatching(/rate limit exceeded: 300 requests a minute/),
    });
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Another client is not affected; unauthenticated requests count too (they are API requests).
    expect((await t.request('/api/account', { key, ip: freshIp() })).status).toBe(200);
    expect((await t.request('/api/account', { ip })).status).toBe(429);
  });

  it('limits sign-in to 20 and starting dashboard scans to 5 a minute', async () => {
    const ip = freshIp();
    const auth = await statuses(t, 21, { ip }, '/auth/login');
    expect(auth.slice(0, 20).every((s) => s !== 429)).toBe(true);
    expect(auth[20]).toBe(429);
    const scans: number[] = [];
    for (let i = 0; i < 6; i++)
      scans.push((await t.request('/api/scans', { key, ip, method: 'POST' })).status);
    expect(scans.slice(0, 5).every((s) => s !== 429)).toBe(true);
    expect(scans[5]).toBe(429);
  });

  it('does not limit the health check', async () => {
    const ip = freshIp();
    expect((await statuses(t, 310, { ip }, '/healthz')).every((s) => s === 200)).toBe(true);
  });
});

describe('client address behind proxies (SVC_TRUST_PROXY)', () => {
  it('ignores X-Forwarded-For unless told how many proxy hops to trust', async () => {
    const direct = await startTestApp({ rateLimits: { api: 2 } });
    const proxied = await startTestApp({ rateLimits: { api: 2 }, trustProxy: 1 });
    try {
      for (const t of [direct, proxied]) await t.userWithKey('p@example.test', 'paid');
      // Direct: a client cannot dodge its limit by claiming other addresses.
      const spoofed = [1, 2, 3].map((i) => ({
        ip: '203.0.113.9',
        headers: { 'x-forwarded-for': `198.51.100.${i}` },
      }));
      const directStatuses = [];
      for (const init of spoofed) directStatuses.push((await direct.request('/api/account', init)).status);
      expect(directStatuses[2]).toBe(429);
      // One trusted hop (the proxy at the socket): the address it forwarded is the client.
      const viaProxy = [];
      for (const init of spoofed) viaProxy.push((await proxied.request('/api/account', init)).status);
      expect(viaProxy.every((s) => s === 401)).toBe(true); // no key: 401, but never rate limited
      const chain = { ip: '203.0.113.9', headers: { 'x-forwarded-for': 'evil-claim, 198.51.100.7' } };
      const same = [];
      for (let i = 0; i < 3; i++) same.push((await proxied.request('/api/account', chain)).status);
      expect(same[2]).toBe(429);
    } finally {
      await direct.cleanup();
      await proxied.cleanup();
    }
  });
});

const redisUp = await redisAvailable('shared rate-limit tests');

describe.skipIf(!redisUp)('rate limits shared through Redis (SVC_REDIS_URL)', () => {
  it('two app instances share one count', async () => {
    const redisA = new Redis(REDIS_URL);
    const redisB = new Redis(REDIS_URL);
    const one = await startTestApp({ redis: redisA, rateLimits: { api: 10 } });
    const two = await startTestApp({ redis: redisB, rateLimits: { api: 10 } });
    try {
      const ip = freshIp();
      const first = await statuses(one, 6, { ip });
      const second = await statuses(two, 4, { ip });
      expect([...first, ...second].every((s) => s === 401)).toBe(true); // counted, not limited
      expect((await one.request('/api/account', { ip })).status).toBe(429);
      expect((await two.request('/api/account', { ip })).status).toBe(429);
    } finally {
      await one.cleanup();
      await two.cleanup();
      redisA.disconnect();
      redisB.disconnect();
    }
  });

  it('still limits, per instance, when Redis is unreachable', async () => {
    const dead = new Redis('redis://127.0.0.1:1', {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
    });
    dead.on('error', () => {});
    const t = await startTestApp({ redis: dead, rateLimits: { api: 3 } });
    try {
      const ip = freshIp();
      const s = await statuses(t, 4, { ip });
      expect(s.slice(0, 3).every((x) => x === 401)).toBe(true);
      expect(s[3]).toBe(429);
    } finally {
      await t.cleanup();
      dead.disconnect();
    }
  });
});
