import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { SESSION_IDLE_MS } from '../../services/sessions.js';

/** The dashboard's session cookie (contract 6) on a service served over plain http. */
export const SESSION_COOKIE = 'svc_session';
/**
 * Its name over https (contract 4): browsers accept a `__Host-` cookie only when it is Secure, has
 * Path=/ and no Domain, so a sibling subdomain or a plain-http page cannot set one in its place.
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

const isHttps = (baseUrl: string) => baseUrl.startsWith('https:');

/** The cookie's name as the configuration implies it; only that name is read. */
export function sessionCookieName(baseUrl: string): string {
  return isHttps(baseUrl) ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

export function sessionIdOf(c: Context, baseUrl: string): string | undefined {
  return getCookie(c, sessionCookieName(baseUrl));
}

/**
 * HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site posts), Secure when the
 * service is served over https, and as long-lived as the idle expiry: the server decides expiry.
 */
export function setSessionCookie(c: Context, sessionId: string, baseUrl: string): void {
  setCookie(c, sessionCookieName(baseUrl), sessionId, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: isHttps(baseUrl),
    path: '/',
    maxAge: Math.floor(SESSION_IDLE_MS / 1000),
  });
}

export function clearSessionCookie(c: Context, baseUrl: string): void {
  deleteCookie(c, sessionCookieName(baseUrl), { path: '/', secure: isHttps(baseUrl) });
}
