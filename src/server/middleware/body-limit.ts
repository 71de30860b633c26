import type { MiddlewareHandler } from 'hono';
import { readBodyBytesLimited } from '../request-body.js';
import type { NodeBindings } from './client-ip.js';

/** Every body no route below reads itself: the sign-in and dashboard forms and the JSON API. */
export const DEFAULT_BODY_LIMIT_BYTES = 16 * 1024;

/**
 * A route that reads its body itself, from the Node request, bounded while it is read: it checks
 * the caller first (a key, a signature comes with the body) and answers past its limit in its own
 * way (hooks: allow, as hooks never block; MCP and the webhook: 413). app.ts lists them, since it
 * mounts them.
 */
export interface BodyReadByRoute {
  prefix: string;
  limit: number;
}

/**
 * Contract 4: every request body has a limit, enforced while it is read. Mounted once for every
 * path, so a route cannot forget it: any body not read by one of `readByRoutes` is read here, up to
 * DEFAULT_BODY_LIMIT_BYTES (a declared length over it is refused unread; a chunked body is cut off
 * as it passes it), and handed on as a request whose body is those bytes. Past it: 413 with the
 * error envelope. A 600 MiB sign-in form had been buffered whole (issue 29: 1.9 GiB, then a 500).
 *
 * GET and HEAD are left alone: no route reads their body, and Node discards it unbuffered.
 */
export function limitRequestBodies(
  readByRoutes: readonly BodyReadByRoute[],
  limit = DEFAULT_BODY_LIMIT_BYTES,
): MiddlewareHandler<{ Bindings: NodeBindings }> {
  const message = `request body over ${limit / 1024} KiB`;
  return async (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD' || readByRoute(readByRoutes, c.req.path)) return next();
    const bytes = await readBodyBytesLimited(c.req.raw, c.env?.incoming, limit);
    if (bytes === null) return c.json({ error: message }, 413);
    const raw = c.req.raw;
    c.req.raw = new Request(raw.url, {
      method,
      headers: raw.headers,
      body: bytes.byteLength === 0 && raw.body === null ? null : new Uint8Array(bytes),
      signal: raw.signal,
    });
    return next();
  };
}

function readByRoute(routes: readonly BodyReadByRoute[], path: string): boolean {
  return routes.some(
    ({ prefix }) =>
      path.startsWith(prefix) &&
      (prefix.endsWith('/') || path.length === prefix.length || path[prefix.length] === '/'),
  );
}
