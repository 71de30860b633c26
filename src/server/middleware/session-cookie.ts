import type { Context } from 'hono';
import { SESSION_IDLE_MS } from '../../services/sessions.js';
import { hostCookie } from './host-cookie.js';

/** The dashboard's session cookie (contract 6) on a service served over plain http. */
export const SESSION_COOKIE = 'svc_session';

/** The session cookie, as long-lived as the idle expiry: the server decides expiry. */
const cookie = hostCookie(SESSION_COOKIE, SESSION_IDLE_MS);

/** The cookie's name as the configuration implies it; only that name is read. */
export function sessionCookieName(baseUrl: string): string {
  return cookie.nameFor(baseUrl);
}

export function sessionIdOf(c: Context, baseUrl: string): string | undefined {
  return cookie.read(c, baseUrl);
}

export function setSessionCookie(c: Context, sessionId: string, baseUrl: string): void {
  cookie.write(c, sessionId, baseUrl);
}

export function clearSessionCookie(c: Context, baseUrl: string): void {
  cookie.clear(c, baseUrl);
}
