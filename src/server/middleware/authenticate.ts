import type { MiddlewareHandler } from 'hono';
import type { PrincipalService } from '../../services/principals.js';
import type { Principal } from '../../services/vocabulary.js';

export type AuthVariables = { principal: Principal };

/** Every API request carries `Authorization: Bearer svc_...`; a bad or missing key is 401. */
export function authenticate(principals: PrincipalService): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async (c, next) => {
    c.set('principal', await principals.authenticate(c.req.header('authorization')));
    await next();
  };
}
