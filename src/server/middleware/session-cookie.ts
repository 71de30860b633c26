import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { SESSION_IDLE_MS } from '../../services/sessions.js';

/** The dashboard's session cookie (contract 6). */
export const SESSION_COOKIE = 'svc_session';

export function sessionIdOf(c: Context): string | undefined {
  return getCookie(c, SESSION_COOKIE);
}

/**
 * HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site posts), Secure when the
 * service is served over https, and as long-lived as the idle expiry: the server decides expiry.
 */
export function setSessionCookie(c: Context, sessionId: string, baseUrl: string): void {
  setCookie(c, SESSION_COOKIE, sessionId, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: baseUrl.startsWith('https:'),
    path: '/',
    maxAge: Math.floor(SESSION_IDLE_MS / 1000),
  });
}

export function clearSessionCookie(c: Context, baseUrl: string): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: baseUrl.startsWith('https:') });
}
