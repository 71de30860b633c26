import type { Context } from 'hono';
import { forbidden } from '../../services/errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const isStateChanging = (method: string) => !SAFE_METHODS.has(method);

/**
 * Whether a request authenticated by its cookie comes from the service's own pages: its Origin is the
 * public origin (SVC_BASE_URL) or the origin the request was addressed to. hono/csrf checks form
 * content types only; this covers JSON too. A request without Origin is refused: browsers send it
 * on every cross-origin and every state-changing request.
 */
export function fromOwnOrigin(c: Context, baseUrl: string): boolean {
  const origin = c.req.header('origin');
  if (origin === undefined) return false;
  return origin === new URL(baseUrl).origin || origin === new URL(c.req.url).origin;
}

/** Throws forbidden for a state-changing request that does not come from the service's own origin. */
export function requireOwnOrigin(c: Context, baseUrl: string): void {
  if (isStateChanging(c.req.method) && !fromOwnOrigin(c, baseUrl)) {
    throw forbidden('cross-origin request refused: send it from the dashboard, or use an API key');
  }
}
