import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Redis } from 'ioredis';
import { createApp } from '../../src/app/app.js';
import { createServices } from '../../src/cli/create-services.js';
import { loadConfig } from '../../src/config/config.js';
import type { RateScope } from '../../src/server/rate-limits.js';
import { type ListenOptions, serveApp } from '../../src/server/serve-app.js';
import type { Plan } from '../../src/services/vocabulary.js';
import { captureLogger } from './capture-logger.js';
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
  /** SVC_BASE_URL: what links and served CI files name the service as. */
  baseUrl?: string;
  now?: () => Date;
  /** Package registries and OSV for the hooks (e.g. FakeRegistries' urls); default: a closed port. */
  registries?: { npm: string; pypi: string; crates: string; goproxy: string; nuget: string; osv: string };
  /** More settings, as environment variables (SVC_SCAN_HOSTS, SVC_SCAN_MAX_BYTES, ...). */
  env?: Record<string, string>;
  /** "Sign in with GitHub" against this fake (its URL serves both the OAuth and the API side). */
  oauthA?: { url: string; clientId: string; clientSecret: string };
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
    // As the build writes it (build/build-binary.mjs), with the system's xz.
    writeFileSync(`${binaryPath}.xz`, execFileSync('xz', ['-c'], { input: binaryBytes }));
  }
  const { logger, logs } = captureLogger();
  const closed = 'http://127.0.0.1:9';
  const registries = options.registries ?? {
    npm: closed,
    pypi: closed,
    crates: closed,
    goproxy: closed,
    nuget: closed,
    osv: closed,
  };
  // The configuration a deployment would have, parsed by the real loader.
  const config = loadConfig({
    SVC_DATABASE_URL: db.url,
    ...(options.baseUrl === undefined ? {} : { SVC_BASE_URL: options.baseUrl }),
    SVC_BINARY_PATH: options.binaryFile ?? binaryPath,
    SVC_TRUST_PROXY: String(options.trustProxy ?? 0),
    SVC_FREE_MONTHLY_CI_RUNS: String(options.monthlyCiRuns?.free ?? 200),
    SVC_PAID_MONTHLY_CI_RUNS: String(options.monthlyCiRuns?.paid ?? 10000),
    SVC_RATE_LIMIT_API: String(options.rateLimits?.api ?? 300),
    SVC_RATE_LIMIT_AUTH: String(options.rateLimits?.auth ?? 20),
    SVC_RATE_LIMIT_SCAN_START: String(options.rateLimits?.scanStart ?? 5),
    SVC_OIDC_A_ISSUER: issuerA.issuer,
    SVC_OIDC_A_JWKS_URL: issuerA.jwksUrlA,
    SVC_OIDC_B_ISSUER: issuerB.issuer,
    SVC_OIDC_B_JWKS_URL: issuerB.jwksUrlB,
    SVC_CODEHOSTB_API_URL: issuerB.apiUrl,
    SVC_CODEHOSTB_TOKEN: issuerB.apiToken,
    SVC_NPM_REGISTRY_URL: registries.npm,
    SVC_PYPI_URL: registries.pypi,
    SVC_CRATES_URL: registries.crates,
    SVC_GOPROXY_URL: registries.goproxy,
    SVC_NUGET_URL: registries.nuget,
    SVC_OSV_URL: registries.osv,
    // Clones of this app's scans go in its own temp folder, removed by cleanup.
    SVC_SCAN_WORK_DIR: join(dir, 'scans'),
    ...options.env,
    ...(options.oauthA === undefined
      ? {}
      : {
          SVC_OAUTH_A_URL: options.oauthA.url,
          SVC_OAUTH_A_CLIENT_ID: options.oauthA.clientId,
          SVC_OAUTH_A_CLIENT_SECRET: options.oauthA.clientSecret,
          SVC_CODEHOST_API_URL: options.oauthA.url,
        }),
  });
  // Without a Redis of the test's own, the registry cache is the database table (redis: null).
  const services = await createServices(config, {
    logger,
    storage: db.storage,
    redis: options.redis ?? null,
    now: options.now,
  });
  const app = createApp(services);

  /** A user (optionally in a team) and a fresh API key for them. */
  async function userWithKey(email: string, plan: Plan = 'free', team?: { name: string; plan: Plan }) {
    await services.accounts.createUser({ email, plan });
    if (team) {
      if ((await db.storage.accounts.findTeamByName(team.name)) === null) {
        await services.accounts.createTeam({ ...team, hookMode: 'block' });
      }
      await services.accounts.addMember(team.name, email);
    }
    return services.accounts.issueKey(email, 'test');
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

  /**
   * Signs up (or in, when `signIn`) through the real form route; returns the `svc_session=...` cookie
   * pair, or throws with the page's status.
   */
  async function session(email: string, password: string, signIn = false): Promise<string> {
    const res = await request(signIn ? '/auth/signin' : '/auth/signup', {
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: config.baseUrl },
      body: new URLSearchParams({ email, password }).toString(),
    });
    const cookie = /svc_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];
    if (res.status !== 303 || cookie === undefined) throw new Error(`sign-in answered ${res.status}`);
    return cookie;
  }

  /** Serves the app on a free loopback port, for clients that need real HTTP (curl, scripts). */
  async function listen(
    limits: Partial<Omit<ListenOptions, 'hostname'>> = {},
  ): Promise<{ url: string; close(): Promise<void> }> {
    const server = await serveApp(app, { port: 0, hostname: '127.0.0.1', ...limits });
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }

  return {
    app,
    db,
    services,
    listen,
    issuerA,
    issuerB,
    logs,
    binaryPath,
    binaryBytes,
    userWithKey,
    request,
    session,
    config,
    async cleanup() {
      await Promise.all([issuerA.stop(), issuerB.stop()]);
      await db.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;
