import type { Context, MiddlewareHandler } from 'hono';
import { httpErrorOf } from '../server/errors.js';
import { DomainError } from '../services/errors.js';

/**
 * Headers of every page: only our own stylesheet and script run (no inline code), no framing, no
 * referrer to other sites (the OAuth callback URL carries a code), and no caching (a new key is on a page once).
 */
export const pageHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  if (c.res.headers.get('content-type')?.startsWith('text/html')) setPageHeaders(c);
};

/** The pages' headers on an HTML answer made outside the page paths (the not-found page). */
export function setPageHeaders(c: Context): void {
  c.header(
    'content-security-policy',
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; connect-src 'self'; " +
      "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  // Not no-referrer: with it, browsers send `Origin: null` on the pages' own form posts.
  c.header('referrer-policy', 'same-origin');
  c.header('x-content-type-options', 'nosniff');
  c.header('cache-control', 'no-store');
}

/** A form's text field ('' when absent or a file). */
export async function formFields(c: Context): Promise<(name: string) => string> {
  const body = await c.req.parseBody();
  return (name) => {
    const value = body[name];
    return typeof value === 'string' ? value : '';
  };
}

/**
 * Runs a page action; a domain error becomes `{message, status}` for the page to show (any other
 * error is a bug and goes to the app's error handler).
 */
export async function attempt<T>(
  action: () => Promise<T>,
): Promise<
  { ok: true; value: T } | { ok: false; message: string; status: 400 | 401 | 403 | 404 | 409 | 429 | 503 }
> {
  try {
    return { ok: true, value: await action() };
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    const status = (httpErrorOf(e)?.status ?? 400) as 400 | 401 | 403 | 404 | 409 | 429 | 503;
    return { ok: false, message: sentence(e.message), status };
  }
}

/** Messages are lower-case fragments in the API; a page shows them as a sentence. */
export function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
