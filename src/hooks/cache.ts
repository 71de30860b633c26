import type { Redis } from 'ioredis';
import type { RegistryCacheRepository } from '../storage/index.js';

/** Where registry answers are kept between requests, shared by every instance. */
export interface SharedCache {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
}

/** The database's cache table, for instances without Redis. */
export function databaseCache(
  table: RegistryCacheRepository,
  now: () => Date = () => new Date(),
): SharedCache {
  return {
    get: (key) => table.cacheGet(key, now()),
    set: (key, value, ttl) => table.cachePut(key, value, new Date(now().getTime() + ttl * 1000)),
  };
}

export function redisCache(redis: Redis): SharedCache {
  return {
    get: (key) => redis.get(`svc-cache:${key}`),
    set: async (key, value, ttl) => {
      await redis.set(`svc-cache:${key}`, value, 'EX', Math.max(1, Math.round(ttl)));
    },
  };
}

/** Entries kept in memory at most, and how long an entry lives there before the shared tier is asked again. */
const MEMORY_ENTRIES = 10_000;
const MEMORY_TTL_SECONDS = 60;

/**
 * Memory in front of the shared tier: a cached install is answered without a round trip, while a
 * new answer still reaches every instance. A failing shared tier is skipped, never fatal: the hooks
 * must not stop working because a cache did.
 */
export function tieredCache(shared: SharedCache, now: () => number = Date.now): SharedCache {
  const memory = new Map<string, { value: string; until: number }>();
  const remember = (key: string, value: string, ttl: number) => {
    if (memory.size >= MEMORY_ENTRIES) memory.delete(memory.keys().next().value!);
    memory.set(key, { value, until: now() + Math.min(ttl, MEMORY_TTL_SECONDS) * 1000 });
  };
  return {
    async get(key) {
      const hit = memory.get(key);
      if (hit !== undefined && hit.until > now()) return hit.value;
      memory.delete(key);
      const value = await shared.get(key).catch(() => null);
      if (value !== null) remember(key, value, MEMORY_TTL_SECONDS);
      return value;
    },
    async set(key, value, ttl) {
      remember(key, value, ttl);
      await shared.set(key, value, ttl).catch(() => {});
    },
  };
}

/** Memory only: for `svc check-command`, which has no service around it. */
export function memoryCache(): SharedCache {
  return tieredCache({ get: async () => null, set: async () => {} });
}
