import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';

const isHttps = (baseUrl: string) => baseUrl.startsWith('https:');

/**
 * A cookie of the service's own (the session, the OAuth state): HttpOnly (no script reads it),
 * SameSite=Lax (not sent on cross-site posts), Path=/, Secure over https and then named `__Host-`
 * (contract 4: browsers accept such a cookie only when it is Secure, has Path=/ and no Domain, so a
 * sibling subdomain or a plain-http page cannot set one in its place). Only the name the
 * configuration implies is read.
 */
export function hostCookie(name: string, maxAgeMs: number) {
  const nameFor = (baseUrl: string) => (isHttps(baseUrl) ? `__Host-${name}` : name);
  return {
    nameFor,
    read: (c: Context, baseUrl: string): string | undefined => getCookie(c, nameFor(baseUrl)),
    write(c: Context, value: string, baseUrl: string): void {
      setCookie(c, nameFor(baseUrl), value, {
        httpOnly: true,
        sameSite: 'Lax',
        secure: isHttps(baseUrl),
        path: '/',
        maxAge: Math.floor(maxAgeMs / 1000),
      });
    },
    clear(c: Context, baseUrl: string): void {
      deleteCookie(c, nameFor(baseUrl), { path: '/', secure: isHttps(baseUrl) });
    },
  };
}
