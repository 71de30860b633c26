import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createAccountAttempts } from '../auth/account-attempts.js';
import { createIdentityServices } from '../auth/ci-identity/index.js';
import { type Config, ConfigError } from '../config/config.js';
import { databaseCache, memoryCache, redisCache, type SharedCache, tieredCache } from '../hooks/cache.js';
import { createRegistries } from '../hooks/ecosystems/index.js';
import type { RiskServices } from '../hooks/risk/assess.js';
import { createOsvLookup } from '../hooks/risk/osv.js';
import { fileBinarySource } from '../server/binary-source.js';
import type { AppDeps } from '../server/deps.js';
import { createRateLimiters } from '../server/rate-limits.js';
import { createAccountSecurityService } from '../services/account-security.js';
import { type AccountService, createAccountService } from '../services/accounts.js';
import { createApiKeyService } from '../services/api-keys.js';
import { createAppApi, readAppPrivateKey } from '../services/app-a/api-client.js';
import { type AppScanRunner, createAppScanRunner } from '../services/app-a/app-scan.js';
import { createAppWebhook } from '../services/app-a/webhook.js';
import { createCiRunService } from '../services/ci-runs.js';
import { createHookCheckService } from '../services/hook-checks.js';
import { createOAuthSignInService } from '../services/oauth-sign-in.js';
import { createOverviewService } from '../services/overview.js';
import { createPasswordLinkService } from '../services/password-links.js';
import { createPrincipalService } from '../services/principals.js';
import { databaseScanQueue } from '../services/scan-queue.js';
import { bullmqScanQueue } from '../services/scan-queue-bullmq.js';
import { type ScanWorker, type ScanWorkerOptions, startScanWorker } from '../services/scan-worker.js';
import { createScanService } from '../services/scans.js';
import { createSessionService } from '../services/sessions.js';
import { ARGON2, createSignInService } from '../services/sign-in.js';
import { createTeamService } from '../services/team.js';
import { createInvitationService } from '../services/team-invitations.js';
import { openStorage, type Storage } from '../storage/index.js';

/**
 * Everything the service's entry points run on, wired once from configuration: what the app needs
 * (AppDeps), and the whole configuration and storage, the operators' account service, and close.
 */
export interface Services extends Omit<AppDeps, 'config' | 'storage'> {
  config: Readonly<Config>;
  storage: Storage;
  accounts: AccountService;
  /**
   * Starts this process's scan worker (svc serve; tests that run scans). Options override the
   * configured ones (tests shorten intervals).
   */
  startScanWorker(overrides?: Partial<ScanWorkerOptions>): Promise<ScanWorker>;
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
  // Read before anything opens: a key that cannot be used stops start-up with one line.
  const appKey = config.appA === undefined ? undefined : appPrivateKey(config.appA.privateKey);
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
  const leaseMs = config.scans.leaseSeconds * 1000;
  const queueOptions = {
    scans: storage.scans,
    // Unique per process: a restarted process must not pass for the one whose lease it finds.
    owner: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    leaseMs,
    now,
  };
  const scanQueue =
    config.scans.queue === 'bullmq' && config.redisUrl !== undefined
      ? bullmqScanQueue({ ...queueOptions, redisUrl: config.redisUrl, logger })
      : databaseScanQueue(queueOptions);
  const appA =
    config.appA === undefined || appKey === undefined
      ? undefined
      : {
          webhook: createAppWebhook({
            webhookSecret: config.appA.webhookSecret,
            gitUrl: config.appA.gitUrl,
            repositories: storage.appRepositories,
            scans: storage.scans,
            queue: scanQueue,
            logger,
            now,
          }),
          runner: createAppScanRunner({
            api: createAppApi({
              apiUrl: config.providers.codehostApiUrl,
              appId: config.appA.id,
              privateKey: appKey,
            }),
            gitUrl: config.appA.gitUrl,
            providers: config.providers,
            logger,
          }) satisfies AppScanRunner,
        };
  // Attempts per account counted in Redis when there is one: every instance refuses together. One
  // count for sign-in and the account page's current password alike.
  const attempts = createAccountAttempts({ redis });
  const sessions = createSessionService(storage.sessions, now);
  const passwordDeps = { credentials: storage.credentials, sessions, passwords: ARGON2, attempts };
  return {
    config,
    logger,
    storage,
    appWebhook: appA?.webhook,
    principals: createPrincipalService(storage.apiKeys, now),
    accounts: createAccountService({ accounts: storage.accounts, apiKeys: storage.apiKeys, ciRuns }),
    ciRuns,
    hookChecks: createHookCheckService({ risk, decisions: storage.hookDecisions, logger, now }),
    signIn: createSignInService(storage.credentials, ARGON2, attempts),
    sessions,
    passwordLinks: createPasswordLinkService({ ...passwordDeps, links: storage.passwordLinks, now }),
    accountSecurity: createAccountSecurityService(passwordDeps),
    oauthSignIn: createOAuthSignInService({
      settings:
        config.oauthA === undefined
          ? undefined
          : {
              clientId: config.oauthA.clientId,
              clientSecret: config.oauthA.clientSecret,
              oauthUrl: config.oauthA.url,
              apiUrl: config.providers.codehostApiUrl.replace(/\/+$/, ''),
            },
      states: storage.oauthStates,
      identities: storage.identities,
      accounts: storage.accounts,
      now,
    }),
    apiKeys: createApiKeyService(storage.apiKeys),
    team: createTeamService(storage.teams, now),
    invitations: createInvitationService({ invitations: storage.invitations, teams: storage.teams, now }),
    overview: createOverviewService({ ciRuns, decisions: storage.hookDecisions }),
    rateLimiters: createRateLimiters({ redis, limits: config.rateLimits }),
    binary: fileBinarySource(config.binaryPath),
    scans: createScanService({ scans: storage.scans, queue: scanQueue, origins: config.scans.origins, now }),
    startScanWorker: (overrides) =>
      startScanWorker({
        queue: scanQueue,
        workDir: config.scans.workDir,
        maxBytes: config.scans.maxBytes,
        timeoutMs: config.scans.timeoutSeconds * 1000,
        leaseMs,
        logger,
        app: appA?.runner,
        ...overrides,
      }),
    async close() {
      await scanQueue.close();
      if (options.storage === undefined) await storage.close();
      await ownRedis?.quit().catch(() => {});
    },
  };
}

function appPrivateKey(setting: string) {
  try {
    return readAppPrivateKey(setting);
  } catch (e) {
    throw new ConfigError(`invalid SVC_APP_A_PRIVATE_KEY: ${e instanceof Error ? e.message : 'unreadable'}`);
  }
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
