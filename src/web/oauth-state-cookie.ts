import type { Context } from 'hono';
import { hostCookie } from '../server/middleware/host-cookie.js';
import { OAUTH_STATE_TTL_MS } from '../services/oauth-sign-in.js';

/**
 * The browser's half of "Sign in with GitHub" (contract 6): the OAuth state, kept by the browser
 * that started the flow and compared with the state the callback carries. HttpOnly; SameSite=Lax, so
 * it comes back on the provider's top-level redirect to the callback; as long-lived as the state;
 * `__Host-` over https, like the session cookie.
 */
const cookie = hostCookie('svc_oauth_state', OAUTH_STATE_TTL_MS);

export function setOAuthStateCookie(c: Context, state: string, baseUrl: string): void {
  cookie.write(c, state, baseUrl);
}

export function oauthStateOf(c: Context, baseUrl: string): string | undefined {
  return cookie.read(c, baseUrl);
}

/** Used once, whatever the outcome: a second callback in this browser needs a new start. */
export function clearOAuthStateCookie(c: Context, baseUrl: string): void {
  cookie.clear(c, baseUrl);
}
