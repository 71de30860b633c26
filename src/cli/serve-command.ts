import { once } from 'node:events';
import { serve } from '@hono/node-server';
import { Redis } from 'ioredis';
import { loadConfig } from '../config/config.js';
import { redisCache, storeCache, tieredCache } from '../hooks/cache.js';
import { createRegistries } from '../hooks/ecosystems/index.js';
import { createOsvLookup } from '../hooks/risk/osv.js';
import { createApp } from '../server/app.js';
import { fileBinarySource } from '../server/binary-source.js';
import { identityServicesFromConfig } from '../server/identity-services.js';
import { createLogger, serviceLogDestination } from '../server/logger.js';
import { createRateLimiters } from '../server/rate-limits.js';
import { openStore } from '../storage/index.js';
import { type CliIo, EXIT, UsageError } from './io.js';

export const SERVE_HELP = `Usage: svc serve

Runs the service (also: npm start). Configuration comes from the environment (see README):
PORT, HOST, SVC_DATABASE_URL (default sqlite:./data/svc.db, created on first start), SVC_REDIS_URL, ...
Stops gracefully on SIGINT or SIGTERM.
`;

export async function serveCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(SERVE_HELP);
    return EXIT.passed;
  }
  if (argv.length > 0) throw new UsageError(`unexpected argument: ${argv[0]}`);
  const config = loadConfig(io.env);
  const logs = serviceLogDestination();
  const logger = createLogger(logs);
  const store = await openStore(config.databaseUrl, {
    onConnectionError: (reason) => logger.warn({ reason }, 'database connection lost; the pool replaces it'),
  });
  // No offline queue: when Redis is down a command fails at once and the in-memory limiter stands in.
  const redis =
    config.redisUrl === undefined
      ? undefined
      : new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis?.on('error', (e) => logger.warn({ error: e.name }, 'redis error'));

  const cache = tieredCache(redis === undefined ? storeCache(store) : redisCache(redis));
  const app = createApp({
    config,
    store,
    logger,
    rateLimiters: createRateLimiters({ redis, limits: config.rateLimits }),
    identity: identityServicesFromConfig(config),
    binary: fileBinarySource(config.binaryPath),
    hooks: {
      registries: createRegistries(config.registries),
      osv: createOsvLookup({ baseUrl: config.registries.osv }),
      cache,
      now: () => new Date(),
    },
  });
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host });
  await once(server, 'listening');
  logger.info(
    { url: `http://${config.host}:${config.port}`, database: config.databaseUrl.split(':')[0] },
    'listening',
  );

  const signal = await Promise.race([
    once(process, 'SIGINT').then(() => 'SIGINT'),
    once(process, 'SIGTERM').then(() => 'SIGTERM'),
  ]);
  logger.info({ signal }, 'shutting down');
  // Stop accepting, let requests in flight finish (closeIdleConnections drops keep-alive sockets).
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    if ('closeIdleConnections' in server) server.closeIdleConnections();
  });
  await store.close();
  await redis?.quit().catch(() => {});
  logs.flushSync();
  return EXIT.passed;
}
