import type { MiddlewareHandler } from 'hono';
import type { PrincipalService } from '../../services/principals.js';
import type { SessionService } from '../../services/sessions.js';
import type { Principal } from '../../services/vocabulary.js';
import { requireOwnOrigin } from './same-origin.js';
import { sessionIdOf } from './session-cookie.js';

export type AuthVariables = { principal: Principal };

/**
 * Every API request carries `Authorization: Bearer svc_...` or the dashboard's session cookie; neither
 * is 401. A bearer key wins when both are sent. A state-changing request by session must come from
 * the service's own origin (403 otherwise); one by key needs no Origin. Paths under `exceptPrefix`
 * pass through unauthenticated (the hooks answer a bad key themselves, with an allow). A prefix test,
 * not hono/combine's `except`: that ran a router match per request, a tenth of the CPU of an
 * authenticated request in a profile.
 */
export function authenticate(
  principals: PrincipalService,
  sessions: SessionService,
  baseUrl: string,
  exceptPrefix?: string,
): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async (c, next) => {
    if (exceptPrefix === undefined || !c.req.path.startsWith(exceptPrefix)) {
      const authorization = c.req.header('authorization');
      const sessionId = authorization === undefined ? sessionIdOf(c, baseUrl) : undefined;
      if (sessionId === undefined) {
        c.set('principal', await principals.authenticate(authorization));
      } else {
        requireOwnOrigin(c, baseUrl);
        c.set('principal', await sessions.authenticate(sessionId));
      }
    }
    await next();
  };
}
