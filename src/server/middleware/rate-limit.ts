import type { Context, MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { loggableName } from '../../services/errors.js';
import { tooManyRequests } from '../errors.js';
import { RATE_LIMITS, type RateLimiters, scopesOf } from '../rate-limits.js';

/** Counts every request against its scopes' per-IP limits before any other work. */
export function rateLimit(
  limiters: RateLimiters,
  ipOf: (c: Context) => string,
  logger: Logger,
): MiddlewareHandler {
  return async (c, next) => {
    const ip = ipOf(c);
    for (const scope of scopesOf(c.req.method, c.req.path)) {
      let decision: Awaited<ReturnType<RateLimiters['consume']>>;
      try {
        decision = await limiters.consume(scope, ip);
      } catch (e) {
        // A limiter that cannot count must not take the service down with it.
        logger.warn({ scope, error: loggableName(e) }, 'rate limiter failed; request let through');
        continue;
      }
      if (!decision.allowed && c.req.path.startsWith('/api/hooks/')) {
        // Hooks fail open (never block a command): the route answers allow and says why.
        c.set('rateLimitedFor', decision.retryAfterSeconds);
      } else if (!decision.allowed) {
        throw tooManyRequests(
          `rate limit exceeded: ${RATE_LIMITS[scope]} requests a minute; retry in ${decision.retryAfterSeconds} s`,
          decision.retryAfterSeconds,
        );
      }
    }
    await next();
  };
}
