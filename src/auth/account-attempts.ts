import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';

/**
 * Password attempts per account (contract 6: "failed sign-ins are limited per account as well as per
 * IP"): 10 in a fixed window of 15 minutes from the first. The per-IP limit (20 a minute) alone lets
 * a botnet try one account's password from thousands of addresses; this caps every address together.
 */
export const ACCOUNT_ATTEMPTS = { points: 10, durationSeconds: 15 * 60 } as const;

/** Password attempts counted per email address, whether or not it has an account. */
export interface AccountAttempts {
  /**
   * Counts one attempt on `email` (before the password is checked, so that parallel guesses are
   * counted too); the seconds to wait when it is over the limit, else 0.
   */
  attempt(email: string): Promise<number>;
  /** The right password: its owner starts again from zero. */
  succeeded(email: string): Promise<void>;
}

/**
 * In memory, or in Redis so that every instance counts together (with the same in-memory counter
 * standing in while Redis fails, as for the per-IP limits). Keys are the SHA-256 of the address:
 * Redis holds no email.
 */
export function createAccountAttempts(
  options: { redis?: Redis; points?: number; durationSeconds?: number } = {},
): AccountAttempts {
  const points = options.points ?? ACCOUNT_ATTEMPTS.points;
  const duration = options.durationSeconds ?? ACCOUNT_ATTEMPTS.durationSeconds;
  const keyPrefix = 'svc-signin-account';
  const memory = new RateLimiterMemory({ points, duration, keyPrefix });
  const limiter: RateLimiterAbstract =
    options.redis === undefined
      ? memory
      : new RateLimiterRedis({
          storeClient: options.redis,
          points,
          duration,
          keyPrefix,
          insuranceLimiter: memory,
        });
  const keyOf = (email: string) => createHash('sha256').update(email).digest('hex');
  return {
    async attempt(email) {
      try {
        await limiter.consume(keyOf(email));
        return 0;
      } catch (e) {
        if (e instanceof RateLimiterRes) return Math.max(1, Math.ceil(e.msBeforeNext / 1000));
        throw e;
      }
    },
    async succeeded(email) {
      await limiter.delete(keyOf(email));
    },
  };
}
