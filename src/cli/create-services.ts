import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createIdentityServices } from '../auth/ci-identity/index.js';
import type { Config } from '../config/config.js';
import { databaseCache, memoryCache, redisCache, type SharedCache, tieredCache } from '../hooks/cache.js';
import { createRegistries } from '../hooks/ecosystems/index.js';
import type { RiskServices } from '../hooks/risk/assess.js';
import { createOsvLookup } from '../hooks/risk/osv.js';
import { type BinarySource, fileBinarySource } from '../server/binary-source.js';
import { createRateLimiters, type RateLimiters } from '../server/rate-limits.js';
import { type AccountService, createAccountService } from '../services/accounts.js';
import { type CiRunService, createCiRunService } from '../services/ci-runs.js';
import { createHookCheckService, type HookCheckService } from '../services/hook-checks.js';
import { createPrincipalService, type PrincipalService } from '../services/principals.js';
import { openStorage, type Storage } from '../storage/index.js';

/** Everything the service's entry points run on, wired once from configuration. */
export interface Services {
  config: Readonly<Config>;
  logger: Logger;
  storage: Storage;
  principals: PrincipalService;
  accounts: AccountService;
  ciRuns: CiRunService;
  hookChecks: HookCheckService;
  rateLimiters: RateLimiters;
  binary: BinarySource;
  /** Closes what was opened here (the database, Redis); not what the caller passed in. */
  close(): Promise<void>;
}

export interface CreateServicesOptions {
  logger: Logger;
  /** An open storage to use instead of opening `config.databaseUrl` (tests pass their own). */
  storage?: Storage;
  /**
   * Redis for shared counters and caches: by default a connection to `config.redisUrl` when set;
   * an instance (tests), or `null` for commands that need nothing shared (svc admin).
   */
  redis?: Redis | null;
  /** The clock; tests move it across months. */
  now?: () => Date;
}

/**
 * The one composition root: `svc serve`, `svc admin`, `svc check-command` (through
 * createRiskServices) and the tests build the product here, so every entry point runs the same rules.
 */
export async function createServices(
  config: Readonly<Config>,
  options: CreateServicesOptions,
): Promise<Services> {
  const { logger } = options;
  const now = options.now ?? (() => new Date());
  const storage =
    options.storage ??
    (await openStorage(config.databaseUrl, {
      onConnectionError: (reason) =>
        logger.warn({ reason }, 'database connection lost; the pool replaces it'),
    }));
  const ownRedis =
    options.redis === undefined && config.redisUrl !== undefined
      ? connectRedis(config.redisUrl, logger)
      : null;
  const redis = options.redis ?? ownRedis ?? undefined;

  const ciRuns = createCiRunService({
    identity: createIdentityServices(config.oidc),
    usage: storage.usage,
    monthlyCiRuns: config.monthlyCiRuns,
    now,
  });
  const risk = createRiskServices(
    config,
    tieredCache(redis === undefined ? databaseCache(storage.registryCache) : redisCache(redis)),
    now,
  );
  return {
    config,
    logger,
    storage,
    principals: createPrincipalService(storage.apiKeys, now),
    accounts: createAccountService({ accounts: storage.accounts, apiKeys: storage.apiKeys, ciRuns }),
    ciRuns,
    hookChecks: createHookCheckService({ risk, decisions: storage.hookDecisions, logger, now }),
    rateLimiters: createRateLimiters({ redis, limits: config.rateLimits }),
    binary: fileBinarySource(config.binaryPath),
    async close() {
      if (options.storage === undefined) await storage.close();
      await ownRedis?.quit().catch(() => {});
    },
  };
}

/** The package checks alone (registries, OSV, a cache), for `svc check-command`, which has no service. */
export function createRiskServices(
  config: Pick<Readonly<Config>, 'registries'>,
  cache: SharedCache = memoryCache(),
  now: () => Date = () => new Date(),
): RiskServices {
  return {
    registries: createRegistries(config.registries),
    osv: createOsvLookup({ baseUrl: config.registries.osv }),
    cache,
    now,
  };
}

function connectRedis(url: string, logger: Logger): Redis {
  // No offline queue: when Redis is down a command fails at once and the in-memory limiter stands in.
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on('error', (e) => logger.warn({ error: e.name }, 'redis error'));
  return redis;
}
