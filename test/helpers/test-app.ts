import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { serve } from '@hono/node-server';
import type { Redis } from 'ioredis';
import { issueApiKey } from '../../src/auth/api-keys.js';
import { storeCache, tieredCache } from '../../src/hooks/cache.js';
import { createRegistries } from '../../src/hooks/ecosystems/index.js';
import { createOsvLookup } from '../../src/hooks/risk/osv.js';
import { createApp } from '../../src/server/app.js';
import { fileBinarySource } from '../../src/server/binary-source.js';
import { identityServicesFromConfig } from '../../src/server/identity-services.js';
import { createLogger } from '../../src/server/logger.js';
import { createRateLimiters, type RateScope } from '../../src/server/rate-limits.js';
import type { Plan } from '../../src/storage/index.js';
import { type Dialect, openTestDatabase, type TestDatabase } from './databases.js';
import { FakeIssuer } from './fake-oidc.js';

export interface TestAppOptions {
  dialect?: Dialect;
  /** Whether the executable is published (SVC_BINARY_PATH exists). */
  published?: boolean;
  /** Serve this executable (e.g. the built dist/svc-linux-x64) instead of a small stand-in. */
  binaryFile?: string;
  monthlyCiRuns?: { free: number; paid: number };
  rateLimits?: Partial<Record<RateScope, number>>;
  redis?: Redis;
  trustProxy?: number;
  now?: () => Date;
  /** Package registries and OSV for the hooks (e.g. FakeRegistries' urls); default: a closed port. */
  registries?: { npm: string; pypi: string; crates: string; goproxy: string; nuget: string; osv: string };
}

/**
 * The whole service as tests use it: a real database, real fake identity issuers on loopback
 * (one per platform, so a token of one is not valid for the other), a real executable file, and
 * log lines captured in memory so a test can search them.
 */
export async function startTestApp(options: TestAppOptions = {}) {
  const db: TestDatabase = await openTestDatabase(options.dialect ?? 'sqlite');
  const [issuerA, issuerB] = await Promise.all([FakeIssuer.start(), FakeIssuer.start()]);
  const dir = mkdtempSync(join(tmpdir(), 'svc-app-'));
  const binaryPath = join(dir, 'svc-linux-x64');
  const binaryBytes = Buffer.from(`#!/bin/sh\necho fake scanner ${'x'.repeat(4096)}\n`);
  if (options.published !== false) {
    writeFileSync(binaryPath, binaryBytes, { mode: 0o755 });
    writeFileSync(`${binaryPath}.gz`, gzipSync(binaryBytes));
  }
  const logs: string[] = [];
  const logger = createLogger(
    new Writable({
      write(chunk, _enc, done) {
        logs.push(String(chunk));
        done();
      },
    }),
  );
  const config = {
    trustProxy: options.trustProxy ?? 0,
    monthlyCiRuns: options.monthlyCiRuns ?? { free: 200, paid: 10000 },
    oidc: {
      a: { issuer: issuerA.issuer, jwksUrl: issuerA.jwksUrlA },
      b: { issuer: issuerB.issuer, jwksUrl: issuerB.jwksUrlB },
      codehostbApiUrl: issuerB.apiUrl,
      codehostbToken: issuerB.apiToken,
    },
  };
  const closed = 'http://127.0.0.1:9';
  const registries = options.registries ?? {
    npm: closed,
    pypi: closed,
    crates: closed,
    goproxy: closed,
    nuget: closed,
    osv: closed,
  };
  const app = createApp({
    config,
    store: db.store,
    logger,
    rateLimiters: createRateLimiters({ redis: options.redis, limits: options.rateLimits }),
    identity: identityServicesFromConfig(config),
    binary: fileBinarySource(options.binaryFile ?? binaryPath),
    hooks: {
      registries: createRegistries(registries),
      osv: createOsvLookup({ baseUrl: registries.osv }),
      cache: tieredCache(storeCache(db.store)),
      now: options.now ?? (() => new Date()),
    },
    now: options.now,
  });

  /** A user (optionally in a team) and a fresh API key for them. */
  async function userWithKey(email: string, plan: Plan = 'free', team?: { name: string; plan: Plan }) {
    await db.store.createUser({ email, plan });
    if (team) {
      if ((await db.store.findTeamByName(team.name)) === null) await db.store.createTeam(team);
      await db.store.addTeamMember(team.name, email);
    }
    const user = (await db.store.findUserByEmail(email))!;
    return issueApiKey(db.store, user.id, 'test');
  }

  /** A request through app.request(), from a given client address (the socket's peer). */
  function request(
    path: string,
    init: {
      key?: string;
      headers?: Record<string, string>;
      ip?: string;
      method?: string;
      body?: string;
    } = {},
  ) {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key !== undefined) headers.authorization = `Bearer ${init.key}`;
    return app.request(
      path,
      { method: init.method ?? (init.body === undefined ? 'GET' : 'POST'), headers, body: init.body },
      {
        incoming: { socket: { remoteAddress: init.ip ?? '192.0.2.1' } },
      },
    );
  }

  /** Serves the app on a free loopback port, for clients that need real HTTP (curl, scripts). */
  async function listen(): Promise<{ url: string; close(): Promise<void> }> {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await once(server, 'listening');
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }

  return {
    app,
    db,
    listen,
    issuerA,
    issuerB,
    logs,
    binaryPath,
    binaryBytes,
    userWithKey,
    request,
    async cleanup() {
      await Promise.all([issuerA.stop(), issuerB.stop()]);
      await db.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;
