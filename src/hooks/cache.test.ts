import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DIALECTS,
  openTestDatabase,
  REDIS_URL,
  redisAvailable,
  skipDialect,
} from '../../test/helpers/databases.js';
import { databaseCache, redisCache, type SharedCache, tieredCache } from './cache.js';

const redisUp = await redisAvailable('the Redis cache test');
const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
redis.on('error', () => {});
if (redisUp) await redis.connect();
afterAll(() => redis.disconnect());

/** Two service instances: each has its own memory tier in front of the one shared tier. */
async function sharedBetweenInstances(shared: () => SharedCache) {
  const key = `test:${randomBytes(6).toString('hex')}`;
  const one = tieredCache(shared());
  const two = tieredCache(shared());
  expect(await two.get(key)).toBeNull();
  await one.set(key, '{"exists":false}', 60);
  expect(await two.get(key)).toBe('{"exists":false}');
}

describe.skipIf(!redisUp)('the registry cache in Redis', () => {
  it('is shared by instances, and expires', async () => {
    await sharedBetweenInstances(() => redisCache(redis));
    const key = `test:${randomBytes(6).toString('hex')}`;
    await redisCache(redis).set(key, 'v', 1);
    expect(await redis.ttl(`svc-cache:${key}`)).toBe(1);
  });
});

for (const dialect of DIALECTS) {
  describe.skipIf(await skipDialect(dialect))(`the registry cache in the database (${dialect})`, () => {
    it('is shared by instances', async () => {
      const db = await openTestDatabase(dialect);
      try {
        await sharedBetweenInstances(() => databaseCache(db.storage.registryCache));
      } finally {
        await db.cleanup();
      }
    });
  });
}

describe('the memory tier', () => {
  it('keeps working when the shared tier fails', async () => {
    const broken: SharedCache = {
      get: () => Promise.reject(new Error('down')),
      set: () => Promise.reject(new Error('down')),
    };
    const cache = tieredCache(broken);
    await cache.set('k', 'v', 60);
    expect(await cache.get('k')).toBe('v');
    expect(await cache.get('missing')).toBeNull();
  });

  it('forgets an entry after its time', async () => {
    let now = 0;
    const cache = tieredCache({ get: async () => null, set: async () => {} }, () => now);
    await cache.set('k', 'v', 10);
    now = 9_000;
    expect(await cache.get('k')).toBe('v');
    now = 11_000;
    expect(await cache.get('k')).toBeNull();
  });
});
