import type { Context } from 'hono';
import { hostCookie } from '../server/middleware/host-cookie.js';
import { looksLikeInvitationToken } from '../services/team-invitations.js';

/** Where an invitation link leads: the signed-in page that names the team and has Accept. */
export const JOIN_PATH = '/dashboard/join';

/**
 * An invitation link opened signed out (contract 6): the token waits in this browser's cookie
 * (HttpOnly, Lax, one hour, `__Host-` over https) while the person signs in, signs up or uses GitHub;
 * then sign-in goes on to JOIN_PATH, a fixed path (no redirect target ever comes from a request).
 */
const cookie = hostCookie('svc_invitation', 60 * 60 * 1000);

/** On a signed-out request for the join page: keeps its token; whether there was one. */
export function keepInvitation(c: Context, baseUrl: string): boolean {
  const token = c.req.path === JOIN_PATH ? c.req.query('token') : undefined;
  if (token === undefined || !looksLikeInvitationToken(token)) return false;
  cookie.write(c, token, baseUrl);
  return true;
}

/** The token kept by keepInvitation, if this browser has one. */
export function keptInvitation(c: Context, baseUrl: string): string | undefined {
  const token = cookie.read(c, baseUrl);
  return token !== undefined && looksLikeInvitationToken(token) ? token : undefined;
}

/** Once the join page has the token (in its form), the browser forgets it. */
export function forgetInvitation(c: Context, baseUrl: string): void {
  cookie.clear(c, baseUrl);
}

/** Where a browser goes once signed in: the invitation it kept, else the overview. */
export function afterSignIn(c: Context, baseUrl: string): string {
  return keptInvitation(c, baseUrl) === undefined ? '/dashboard' : JOIN_PATH;
}
