import type { MiddlewareHandler } from 'hono';

/** A year, subdomains included: what HSTS preload lists ask for (contract 4). */
const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * Headers every answer carries (contract 4), set after the route has answered, so 404s, errors,
 * rate limits, hooks, MCP and the binary get them too:
 * - `X-Content-Type-Options: nosniff`: a browser never reads a JSON error or a key list as HTML or script;
 * - `Cache-Control: no-store` unless the route chose its own caching (the hashed assets): answers carry
 *   keys, sessions and account data, and a shared or back-button cache must keep none of them;
 * - with an https SVC_BASE_URL, `Strict-Transport-Security`: no later visit goes over plain http,
 *   where the session cookie could be read or replaced.
 */
export function securityHeaders(baseUrl: string): MiddlewareHandler {
  const https = baseUrl.startsWith('https:');
  return async (c, next) => {
    await next();
    c.header('x-content-type-options', 'nosniff');
    if (!c.res.headers.has('cache-control')) c.header('cache-control', 'no-store');
    if (https) c.header('strict-transport-security', HSTS);
  };
}
