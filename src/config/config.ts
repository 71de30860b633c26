import { z } from 'zod';
import { ConfigError } from './config-error.js';

export { ConfigError };

/**
 * The environment (README: "Configuration"), parsed once at the edge into a frozen object. Library code
 * takes what it needs as options and never reads process.env.
 */
const url = (fallback: string) => z.url({ protocol: /^https?$/ }).default(fallback);
const count = (fallback: number) => z.coerce.number().int().nonnegative().default(fallback);

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
  oidc: {
    a: { issuer: string; jwksUrl: string };
    b: { issuer: string; jwksUrl: string };
    codehostbApiUrl: string;
    codehostbToken: string | undefined;
  };
  registries: { npm: string; pypi: string; crates: string; goproxy: string; nuget: string; osv: string };
  monthlyCiRuns: { free: number; paid: number };
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
