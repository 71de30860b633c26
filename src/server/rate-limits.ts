import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';

/** Requests per client IP per minute, by scope (README: "The service"). */
export const RATE_LIMITS = { api: 300, auth: 20, scanStart: 5 } as const;
export type RateScope = keyof typeof RATE_LIMITS;

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface RateLimiters {
  consume(scope: RateScope, ip: string): Promise<RateDecision>;
}

/**
 * Fixed one-minute windows per scope and IP. With Redis the counters are shared by every instance;
 * if Redis fails, an in-memory limiter with the same limits stands in (per instance, but still a limit).
 */
export function createRateLimiters(
  options: { redis?: Redis; limits?: Partial<Record<RateScope, number>> } = {},
): RateLimiters {
  const limiters = {} as Record<RateScope, RateLimiterAbstract>;
  for (const scope of Object.keys(RATE_LIMITS) as RateScope[]) {
    const points = options.limits?.[scope] ?? RATE_LIMITS[scope];
    const memory = new RateLimiterMemory({ points, duration: 60, keyPrefix: `svc-rl-${scope}` });
    limiters[scope] =
      options.redis === undefined
        ? memory
        : new RateLimiterRedis({
            storeClient: options.redis,
            points,
            duration: 60,
            keyPrefix: `svc-rl-${scope}`,
            insuranceLimiter: memory,
          });
  }
  return {
    async consume(scope, ip) {
      try {
        await limiters[scope].consume(ip);
        return { allowed: true };
      } catch (e) {
        if (e instanceof RateLimiterRes) {
          return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(e.msBeforeNext / 1000)) };
        }
        throw e;
      }
    },
  };
}

/**
 * The limits a request counts against: none for health checks and pages, `auth` for
 * sign-in and the account page's forms, `api` for API, MCP and hook requests, and starting a dashboard scan (by the API or the
 * scans page's form) also against its own.
 */
export function scopesOf(method: string, path: string): RateScope[] {
  if (path.startsWith('/auth/')) return ['auth'];
  // The account page's posts check a password or end sessions: as limited as signing in.
  if (method === 'POST' && path.startsWith('/dashboard/account/')) return ['auth'];
  // The platform's deliveries come from a few addresses and are not sent again when refused: a burst of
  // pushes must not cost scans. They are signed, and a bad signature costs one HMAC.
  if (path === '/api/apps/codehost-a/webhook') return [];
  if (method === 'POST' && path === '/api/scans') return ['api', 'scanStart'];
  if (method === 'POST' && path === '/dashboard/scans') return ['scanStart'];
  if (path.startsWith('/api/') || path === '/mcp' || path.startsWith('/mcp/')) return ['api'];
  return [];
}
