import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from './config-error.js';

export { ConfigError };

/**
 * The environment (README: "Configuration"), parsed once at the edge into a frozen object. Library code
 * takes what it needs as options and never reads process.env.
 */
const url = (fallback: string) => z.url({ protocol: /^https?$/ }).default(fallback);
const count = (fallback: number) => z.coerce.number().int().nonnegative().default(fallback);
const positive = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** A host name as SVC_SCAN_HOSTS may list it (`github.com`): letters, digits, dots, hyphens, a port. */
const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/;

/**
 * SVC_SCAN_HOSTS entries as origins: a bare host means https on it (`github.com` ->
 * `https://github.com`); a full origin (`http://127.0.0.1:8123`) is kept, which is how tests allow a
 * loopback git server over plain HTTP. Anything with a path, credentials or another scheme is refused.
 */
function scanOrigin(entry: string): string | null {
  const text = entry.trim().toLowerCase();
  if (HOST_NAME.test(text)) return `https://${text}`;
  if (!/^https?:\/\/[^/?#@]+\/?$/.test(text) || !URL.canParse(text)) return null;
  return new URL(text).origin;
}

const scanHosts = z
  .string()
  .default('github.com,gitlab.com')
  .transform((value, ctx) => {
    const origins: string[] = [];
    for (const entry of value.split(',').filter((e) => e.trim() !== '')) {
      const origin = scanOrigin(entry);
      if (origin === null) {
        ctx.addIssue({
          code: 'custom',
          message: `"${entry.trim()}" is neither a host name nor an http(s) origin`,
        });
        return z.NEVER;
      }
      origins.push(origin);
    }
    return [...new Set(origins)];
  });

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  SVC_BASE_URL: url('http://localhost:3000'),
  SVC_DATABASE_URL: z
    .string()
    .regex(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, 'must be sqlite:PATH or postgres://...')
    .default('sqlite:./data/svc.db'),
  SVC_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/.+/, 'must be redis://...')
    .optional(),
  SVC_BINARY_PATH: z.string().min(1).default('./dist/svc-linux-x64'),
  SVC_TRUST_PROXY: count(0),
  SVC_CODEHOST_API_URL: url('https://api.github.com'),
  SVC_OAUTH_A_CLIENT_ID: z.string().min(1).optional(),
  SVC_OAUTH_A_CLIENT_SECRET: z.string().min(1).optional(),
  SVC_OAUTH_A_URL: url('https://github.com'),
  SVC_APP_A_ID: z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, 'must be the application id (a number)')
    .optional(),
  SVC_APP_A_PRIVATE_KEY: z.string().min(1).optional(),
  SVC_APP_A_WEBHOOK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  SVC_CODEHOST_GIT_URL: url('https://github.com'),
  SVC_PAYMENT_API_URL: url('https://api.stripe.com'),
  SVC_CHAT_API_URL: url('https://slack.com'),
  SVC_OIDC_A_ISSUER: url('https://token.actions.githubusercontent.com'),
  SVC_OIDC_A_JWKS_URL: z.url().optional(),
  SVC_OIDC_B_ISSUER: url('https://gitlab.com'),
  SVC_OIDC_B_JWKS_URL: z.url().optional(),
  SVC_CODEHOSTB_API_URL: url('https://gitlab.com/api/v4'),
  SVC_CODEHOSTB_TOKEN: z.string().min(1).optional(),
  SVC_NPM_REGISTRY_URL: url('https://registry.npmjs.org'),
  SVC_PYPI_URL: url('https://pypi.org'),
  SVC_CRATES_URL: url('https://crates.io'),
  SVC_GOPROXY_URL: url('https://proxy.golang.org'),
  SVC_NUGET_URL: url('https://api.nuget.org/v3-flatcontainer'),
  SVC_OSV_URL: url('https://api.osv.dev'),
  SVC_RATE_LIMIT_API: count(300),
  SVC_RATE_LIMIT_AUTH: count(20),
  SVC_RATE_LIMIT_SCAN_START: count(5),
  SVC_SCAN_HOSTS: scanHosts,
  SVC_SCAN_MAX_BYTES: positive(2 * 1024 ** 3),
  SVC_SCAN_TIMEOUT_S: positive(900),
  SVC_SCAN_WORK_DIR: z.string().min(1).default(join(tmpdir(), 'svc-scans')),
  SVC_SCAN_LEASE_S: positive(30),
  SVC_SCAN_QUEUE: z.enum(['database', 'bullmq']).default('database'),
  SVC_FREE_MONTHLY_CI_RUNS: count(200),
  SVC_PAID_MONTHLY_CI_RUNS: count(10000),
});

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  databaseUrl: string;
  redisUrl: string | undefined;
  binaryPath: string;
  trustProxy: number;
  providers: { codehostApiUrl: string; paymentApiUrl: string; chatApiUrl: string };
  /** "Sign in with GitHub": offered only when both the client id and secret are set. */
  oauthA: { clientId: string; clientSecret: string; url: string } | undefined;
  /**
   * The GitHub application (contract 8): on only when its id, private key and webhook secret are
   * all set. `privateKey` is the setting as given: a PEM, or the path of one (read at start-up).
   */
  appA: { id: string; privateKey: string; webhookSecret: string; gitUrl: string } | undefined;
  oidc: {
    a: { issuer: string; jwksUrl: string };
    b: { issuer: string; jwksUrl: string };
    codehostbApiUrl: string;
    codehostbToken: string | undefined;
  };
  registries: { npm: string; pypi: string; crates: string; goproxy: string; nuget: string; osv: string };
  monthlyCiRuns: { free: number; paid: number };
  /**
   * Dashboard scans: the origins a URL may name, the byte and time bounds of one scan, where clones
   * go, and how long a worker's claim on a scan lasts without a heartbeat (a killed worker's scan is
   * taken up again after it).
   */
  scans: {
    origins: string[];
    maxBytes: number;
    timeoutSeconds: number;
    workDir: string;
    leaseSeconds: number;
    /** `database`: the embedded queue (the scans table); `bullmq`: BullMQ on SVC_REDIS_URL. */
    queue: 'database' | 'bullmq';
  };
  /** Per-IP limits per minute (300 API, 20 sign-in, 5 scan starts); raised only for load tests. */
  rateLimits: { api: number; auth: number; scanStart: number };
}

export function loadConfig(env: NodeJS.ProcessEnv): Readonly<Config> {
  // An empty variable means unset, as in most shells' `VAR= command`.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`invalid ${name}: ${issue.message}`);
  }
  const e = parsed.data;
  if ((e.SVC_OAUTH_A_CLIENT_ID === undefined) !== (e.SVC_OAUTH_A_CLIENT_SECRET === undefined)) {
    const missing =
      e.SVC_OAUTH_A_CLIENT_ID === undefined ? 'SVC_OAUTH_A_CLIENT_ID' : 'SVC_OAUTH_A_CLIENT_SECRET';
    throw new ConfigError(`invalid ${missing}: required when the other GitHub sign-in setting is set`);
  }
  const appSettings = ['SVC_APP_A_ID', 'SVC_APP_A_PRIVATE_KEY', 'SVC_APP_A_WEBHOOK_SECRET'] as const;
  const appMissing = appSettings.filter((name) => e[name] === undefined);
  if (appMissing.length > 0 && appMissing.length < appSettings.length) {
    throw new ConfigError(
      `invalid ${appMissing[0]}: required when the other GitHub application settings are set`,
    );
  }
  if (e.SVC_SCAN_QUEUE === 'bullmq' && e.SVC_REDIS_URL === undefined) {
    throw new ConfigError('invalid SVC_SCAN_QUEUE: bullmq needs SVC_REDIS_URL');
  }
  const trimmed = (u: string) => u.replace(/\/+$/, '');
  return deepFreeze({
    port: e.PORT,
    host: e.HOST,
    baseUrl: trimmed(e.SVC_BASE_URL),
    databaseUrl: e.SVC_DATABASE_URL,
    redisUrl: e.SVC_REDIS_URL,
    binaryPath: e.SVC_BINARY_PATH,
    trustProxy: e.SVC_TRUST_PROXY,
    providers: {
      codehostApiUrl: e.SVC_CODEHOST_API_URL,
      paymentApiUrl: e.SVC_PAYMENT_API_URL,
      chatApiUrl: e.SVC_CHAT_API_URL,
    },
    oauthA:
      e.SVC_OAUTH_A_CLIENT_ID !== undefined && e.SVC_OAUTH_A_CLIENT_SECRET !== undefined
        ? {
            clientId: e.SVC_OAUTH_A_CLIENT_ID,
            clientSecret: e.SVC_OAUTH_A_CLIENT_SECRET,
            url: trimmed(e.SVC_OAUTH_A_URL),
          }
        : undefined,
    appA:
      e.SVC_APP_A_ID !== undefined &&
      e.SVC_APP_A_PRIVATE_KEY !== undefined &&
      e.SVC_APP_A_WEBHOOK_SECRET !== undefined
        ? {
            id: e.SVC_APP_A_ID,
            privateKey: e.SVC_APP_A_PRIVATE_KEY,
            webhookSecret: e.SVC_APP_A_WEBHOOK_SECRET,
            gitUrl: trimmed(e.SVC_CODEHOST_GIT_URL),
          }
        : undefined,
    oidc: {
      a: {
        issuer: trimmed(e.SVC_OIDC_A_ISSUER),
        jwksUrl: e.SVC_OIDC_A_JWKS_URL ?? `${trimmed(e.SVC_OIDC_A_ISSUER)}/.well-known/jwks`,
      },
      b: {
        issuer: trimmed(e.SVC_OIDC_B_ISSUER),
        jwksUrl: e.SVC_OIDC_B_JWKS_URL ?? `${trimmed(e.SVC_OIDC_B_ISSUER)}/oauth/discovery/keys`,
      },
      codehostbApiUrl: trimmed(e.SVC_CODEHOSTB_API_URL),
      codehostbToken: e.SVC_CODEHOSTB_TOKEN,
    },
    registries: {
      npm: trimmed(e.SVC_NPM_REGISTRY_URL),
      pypi: trimmed(e.SVC_PYPI_URL),
      crates: trimmed(e.SVC_CRATES_URL),
      goproxy: trimmed(e.SVC_GOPROXY_URL),
      nuget: trimmed(e.SVC_NUGET_URL),
      osv: trimmed(e.SVC_OSV_URL),
    },
    monthlyCiRuns: { free: e.SVC_FREE_MONTHLY_CI_RUNS, paid: e.SVC_PAID_MONTHLY_CI_RUNS },
    scans: {
      origins: e.SVC_SCAN_HOSTS,
      maxBytes: e.SVC_SCAN_MAX_BYTES,
      timeoutSeconds: e.SVC_SCAN_TIMEOUT_S,
      workDir: e.SVC_SCAN_WORK_DIR,
      leaseSeconds: e.SVC_SCAN_LEASE_S,
      queue: e.SVC_SCAN_QUEUE,
    },
    rateLimits: {
      api: e.SVC_RATE_LIMIT_API,
      auth: e.SVC_RATE_LIMIT_AUTH,
      scanStart: e.SVC_RATE_LIMIT_SCAN_START,
    },
  });
}

function deepFreeze<T extends object>(value: T): Readonly<T> {
  for (const v of Object.values(value)) if (typeof v === 'object' && v !== null) deepFreeze(v);
  return Object.freeze(value);
}
