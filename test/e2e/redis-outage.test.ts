import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCi } from '../helpers/ci.js';
import { sleep, startLoad } from '../helpers/load.js';
import { freePort, startServiceProcess } from '../helpers/service-process.js';

/**
 * This test stops and restarts Redis, so it runs its own `redis-server` on a free port rather than
 * the shared one other suites count on. Skipped (saying so) where there is no redis-server, except in CI.
 */
const haveRedisServer = spawnSync('redis-server', ['--version']).status === 0;
if (!haveRedisServer && !isCi()) console.warn('redis-server not found: Redis outage test skipped');

async function startRedis(port: number): Promise<ChildProcess> {
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const client = new Redis(port, '127.0.0.1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  for (let i = 0; i < 100; i++) {
    try {
      await client.connect();
      break;
    } catch {
      await sleep(50);
    }
  }
  client.disconnect();
  return server;
}

const LIMIT = 40;
let ipCounter = 0;
/** A client address not used before in this run (the service trusts one proxy hop). */
const nextIp = () => `198.51.${(++ipCounter >> 8) & 255}.${ipCounter & 255}`;

describe.skipIf(!haveRedisServer && !isCi())('Redis stopped and restarted under load', () => {
  let redisPort: number;
  let redis: ChildProcess;
  let counters: Redis;
  let dir: string;
  let service: Awaited<ReturnType<typeof startServiceProcess>>;

  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    counters = new Redis(redisPort, '127.0.0.1', { maxRetriesPerRequest: 1 });
    counters.on('error', () => {});
    dir = mkdtempSync(join(tmpdir(), 'svc-redis-outage-'));
    service = await startServiceProcess(
      {
        SVC_DATABASE_URL: `sqlite:${join(dir, 'svc.db')}`,
        SVC_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        SVC_TRUST_PROXY: '1',
        SVC_RATE_LIMIT_API: String(LIMIT),
        SVC_BINARY_PATH: join(dir, 'not-published'),
      },
      'paid',
      { capture: true },
    );
  });
  afterAll(async () => {
    await service?.stop();
    counters?.disconnect();
    redis?.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** LIMIT + 5 requests from one new address: the statuses, in order. */
  async function burst(ip: string): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < LIMIT + 5; i++) {
      const r = await fetch(`${service.base}/api/account`, {
        headers: { authorization: `Bearer ${service.key}`, 'x-forwarded-for': ip },
      });
      out.push(r.status);
    }
    return out;
  }
  const expected = [...Array(LIMIT).fill(200), ...Array(5).fill(429)];

  it('keeps limiting per instance while Redis is down, with no 5xx, and shares counters again when it returns', async () => {
    // Redis up: the counter lives in Redis.
    const first = nextIp();
    expect(await burst(first)).toEqual(expected);
    expect(Number(await counters.get(`svc-rl-api:${first}`))).toBe(LIMIT + 5);

    // Under load (each request from a new address, so none is limited), Redis is killed.
    const load = startLoad(
      service.base,
      Array.from({ length: 500 }, () => ({
        route: 'account',
        path: '/api/account',
        init: { headers: { authorization: `Bearer ${service.key}`, 'x-forwarded-for': nextIp() } },
      })),
      6,
    );
    await sleep(500);
    redis.kill('SIGKILL');
    await once(redis, 'exit');
    await sleep(1500);
    // Down: the in-memory limiter stands in, with the same limit.
    expect(await burst(nextIp())).toEqual(expected);

    // Back: the service reconnects by itself and counts in Redis again.
    redis = await startRedis(redisPort);
    let shared = false;
    for (let i = 0; i < 100 && !shared; i++) {
      const ip = nextIp();
      await fetch(`${service.base}/api/account`, {
        headers: { authorization: `Bearer ${service.key}`, 'x-forwarded-for': ip },
      });
      shared = (await counters.get(`svc-rl-api:${ip}`).catch(() => null)) === '1';
      if (!shared) await sleep(100);
    }
    expect(shared).toBe(true);
    const last = nextIp();
    expect(await burst(last)).toEqual(expected);
    expect(Number(await counters.get(`svc-rl-api:${last}`))).toBe(LIMIT + 5);
    await load.stop();

    expect(load.samples.length).toBeGreaterThan(100);
    expect([...new Set(load.samples.map((s) => s.status))]).toEqual([200]);
    expect(service.running()).toBe(true);
    expect(service.output()).toContain('redis error');
  });
});
