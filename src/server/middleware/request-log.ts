import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';

/** Query parameters whose values are safe to log; every other value is replaced. */
const LOGGED_PARAMS = new Set(['repo', 'codehostb_project', 'mode']);
/**
 * Longest value or path kept in a log line: real repository names are far shorter, and a client
 * must not be able to write kilobytes into every line it causes.
 */
export const MAX_LOGGED_CHARS = 200;

function capped(value: string): string {
  return value.length <= MAX_LOGGED_CHARS
    ? value
    : `${value.slice(0, MAX_LOGGED_CHARS)}...(${value.length} chars)`;
}

/**
 * One structured line per request: method, path, status, duration, client IP. Headers are never
 * logged, and query values are kept only for the parameters above, so no key or token reaches a log
 * whatever a client puts where.
 */
export function requestLog(
  logger: Logger,
  ipOf: (c: Parameters<MiddlewareHandler>[0]) => string,
): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const raw = c.req.url;
    const q = raw.indexOf('?');
    const query =
      q === -1
        ? []
        : [...new URLSearchParams(raw.slice(q + 1))].map(
            ([k, v]) => `${capped(k)}=${LOGGED_PARAMS.has(k) ? capped(v) : '[redacted]'}`,
          );
    logger.info(
      {
        method: c.req.method,
        path: capped(c.req.path),
        query: query.length > 0 ? query.join('&') : undefined,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        ip: ipOf(c),
      },
      'request',
    );
  };
}
