import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { maskSecrets } from '../../scanner/index.js';

/** Query parameters whose values are safe to log; every other value is replaced. */
const LOGGED_PARAMS = new Set(['repo', 'codehostb_project', 'mode']);
/**
 * Longest value or path kept in a log line: real repository names are far shorter, and a client
 * must not be able to write kilobytes into every line it causes.
 */
export const MAX_LOGGED_CHARS = 200;

/**
 * What a client chose, made fit for a log line: any secret the scanner's rules recognise (a token
 * pasted into a path, a query key or a logged value) masked, then cut to MAX_LOGGED_CHARS. Masked
 * first, so a cut never leaves a secret too short to be recognised.
 */
export function fitForLog(value: string): string {
  const masked = maskSecrets(value);
  return masked.length <= MAX_LOGGED_CHARS
    ? masked
    : `${masked.slice(0, MAX_LOGGED_CHARS)}...(${value.length} chars)`;
}

/**
 * One structured line per request: method, path, status, duration, client IP. Headers are never
 * logged, query values are kept only for the parameters above, and a secret the scanner recognises
 * in the path, a query key or a kept value is masked, so no key or token reaches a log whatever a
 * client puts where.
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
            ([k, v]) => `${fitForLog(k)}=${LOGGED_PARAMS.has(k) ? fitForLog(v) : '[redacted]'}`,
          );
    logger.info(
      {
        method: c.req.method,
        path: fitForLog(c.req.path),
        query: query.length > 0 ? query.join('&') : undefined,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        ip: ipOf(c),
      },
      'request',
    );
  };
}
