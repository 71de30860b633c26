import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REDIS_URL, redisAvailable } from '../../test/helpers/databases.js';
import { createRateLimiters, RATE_LIMITS, type RateScope, scopesOf } from './rate-limits.js';

/** A client address no other run uses, so counters kept in Redis never collide. */
const freshIp = () => `10.${[...randomBytes(3)].join('.')}`;

afterEach(() => {
  vi.useRealTimers();
});

describe('scopesOf: the limits a request counts against', () => {
  it.each<[string, string, RateScope[]]>([
    // Health checks, pages and assets: no limit.
    ['GET', '/', []],
    ['GET', '/healthz', []],
    ['GET', '/livez', []],
    ['GET', '/dashboard', []],
    ['GET', '/apix', []],
    ['GET', '/api', []],
    ['GET', '/mcpx', []],
    ['GET', '/auth', []],
    // Sign-in.
    ['GET', '/auth/login', ['auth']],
    ['POST', '/auth/callback', ['auth']],
    // API, MCP and hooks.
    ['GET', '/api/account', ['api']],
    ['POST', '/api/hooks/agent-a', ['api']],
    ['GET', '/api/scans', ['api']],
    ['POST', '/api/scans/12', ['api']],
    ['POST', '/mcp', ['api']],
    ['GET', '/mcp/sse', ['api']],
    // Starting a dashboard scan: the API limit and its own.
    ['POST', '/api/scans', ['api', 'scanStart']],
    // The scans page's form: a page (no API limit), but a scan start.
    ['POST', '/dashboard/scans', ['scanStart']],
    ['GET', '/dashboard/scans', []],
    ['POST', '/dashboard/scans/x', []],
    // The account page's forms: a password checked or sessions ended, as limited as signing in.
    ['POST', '/dashboard/account/password', ['auth']],
    ['POST', '/dashboard/account/signout-everywhere', ['auth']],
    ['GET', '/dashboard/account', []],
  ])('%s %s: %j', (method, path, scopes) => {
    expect(scopesOf(method, path)).toEqual(scopes);
  });
});

describe('createRateLimiters, in memory', () => {
  it('has the documented limits: 300 API, 20 sign-in, 5 scan starts per IP per minute', () => {
    expect(RATE_LIMITS).toEqual({ api: 300, auth: 20, scanStart: 5 });
  });

  it.each(
    Object.entries(RATE_LIMITS) as [RateScope, number][],
  )('lets %s through %i times per IP, then refuses', async (scope, limit) => {
    const limiters = createRateLimiters();
    for (let i = 0; i < limit; i++) {
      expect(await limiters.consume(scope, '192.0.2.1'), `request ${i + 1}`).toEqual({ allowed: true });
    }
    expect((await limiters.consume(scope, '192.0.2.1')).allowed).toBe(false);
  });

  it('counts each scope and each IP apart, and takes an override for one scope only', async () => {
    const limiters = createRateLimiters({ limits: { scanStart: 1 } });
    expect(await limiters.consume('scanStart', '192.0.2.1')).toEqual({ allowed: true });
    expect((await limiters.consume('scanStart', '192.0.2.1')).allowed).toBe(false);
    expect(await limiters.consume('scanStart', '192.0.2.2')).toEqual({ allowed: true });
    // The other scopes keep their own counters and their default limits.
    for (let i = 0; i < RATE_LIMITS.auth; i++) {
      expect(await limiters.consume('auth', '192.0.2.1')).toEqual({ allowed: true });
    }
    expect((await limiters.consume('auth', '192.0.2.1')).allowed).toBe(false);
    expect(await limiters.consume('api', '192.0.2.1')).toEqual({ allowed: true });
  });

  it('says when to retry: the whole seconds left in the minute, never less than 1', async () => {
    // The limiter's window is read from Date.now(): a stopped clock, moved by hand, makes the
    // seconds exact on any machine.
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.now();
    const limiters = createRateLimiters({ limits: { auth: 1 } });
    await limiters.consume('auth', '192.0.2.9');
    expect(await limiters.consume('auth', '192.0.2.9')).toEqual({ allowed: false, retryAfterSeconds: 60 });
    vi.setSystemTime(start + 500);
    expect(await limiters.consume('auth', '192.0.2.9')).toEqual({ allowed: false, retryAfterSeconds: 60 });
    vi.setSystemTime(start + 58_500);
    expect(await limiters.consume('auth', '192.0.2.9')).toEqual({ allowed: false, retryAfterSeconds: 2 });
    vi.setSystemTime(start + 59_999);
    expect(await limiters.consume('auth', '192.0.2.9')).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });
});

const redisUp = await redisAvailable('rate-limit unit tests on Redis');

describe.skipIf(!redisUp)('createRateLimiters on Redis', () => {
  it("shares each scope's counter between instances, and keeps the scopes apart", async () => {
    const [a, b] = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
    try {
      const one = createRateLimiters({ redis: a, limits: { api: 3, auth: 3 } });
      const two = createRateLimiters({ redis: b, limits: { api: 3, auth: 3 } });
      const ip = freshIp();
      expect(await one.consume('api', ip)).toEqual({ allowed: true });
      expect(await two.consume('api', ip)).toEqual({ allowed: true });
      expect(await one.consume('api', ip)).toEqual({ allowed: true });
      expect((await two.consume('api', ip)).allowed).toBe(false); // the fourth, counted across both
      // Another scope of the same IP has a counter of its own.
      expect(await two.consume('auth', ip)).toEqual({ allowed: true });
    } finally {
      a.disconnect();
      b.disconnect();
    }
  });
});
