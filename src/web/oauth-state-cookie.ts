import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { OAUTH_STATE_TTL_MS } from '../services/oauth-sign-in.js';

/**
 * The browser's half of "Sign in with GitHub" (contract 6): the OAuth state, kept by the browser
 * that started the flow and compared with the state the callback carries. HttpOnly; SameSite=Lax, so
 * it comes back on the provider's top-level redirect to the callback; as long-lived as the state;
 * `__Host-` over https, like the session cookie.
 */
const NAME = 'svc_oauth_state';

const isHttps = (baseUrl: string) => baseUrl.startsWith('https:');
const nameFor = (baseUrl: string) => (isHttps(baseUrl) ? `__Host-${NAME}` : NAME);

export function setOAuthStateCookie(c: Context, state: string, baseUrl: string): void {
  setCookie(c, nameFor(baseUrl), state, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: isHttps(baseUrl),
    path: '/',
    maxAge: Math.floor(OAUTH_STATE_TTL_MS / 1000),
  });
}

export function oauthStateOf(c: Context, baseUrl: string): string | undefined {
  return getCookie(c, nameFor(baseUrl));
}

/** Used once, whatever the outcome: a second callback in this browser needs a new start. */
export function clearOAuthStateCookie(c: Context, baseUrl: string): void {
  deleteCookie(c, nameFor(baseUrl), { path: '/', secure: isHttps(baseUrl) });
}
