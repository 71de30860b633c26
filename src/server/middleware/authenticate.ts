import type { MiddlewareHandler } from 'hono';
import { bearerToken, hashApiKey } from '../../auth/api-keys.js';
import type { Principal, Store } from '../../storage/index.js';
import { unauthorized } from '../errors.js';

/** How often a key's last-used time is written at most: a write per request would cost the hot path. */
const TOUCH_INTERVAL_MS = 60_000;

export type AuthVariables = { principal: Principal };

/**
 * The principal of the `Authorization: Bearer` key, `missing` when none was sent, or `invalid`. The
 * API answers 401 for the last two; the hooks allow the command and say why (spec 7.2).
 */
export async function principalOf(
  store: Store,
  authorization: string | undefined,
): Promise<Principal | 'missing' | 'invalid'> {
  const key = bearerToken(authorization);
  if (key === null) return 'missing';
  return (await store.findPrincipalByKeyHash(hashApiKey(key))) ?? 'invalid';
}

/** Spec 5: every API request carries `Authorization: Bearer svc_...`; a bad or missing key is 401. */
export function authenticate(store: Store, now: () => Date): MiddlewareHandler<{ Variables: AuthVariables }> {
  const lastTouched = new Map<number, number>();
  return async (c, next) => {
    const principal = await principalOf(store, c.req.header('authorization'));
    if (principal === 'missing') throw unauthorized('missing API key');
    if (principal === 'invalid') throw unauthorized('invalid API key');
    const at = now();
    if (at.getTime() - (lastTouched.get(principal.key.id) ?? 0) >= TOUCH_INTERVAL_MS) {
      lastTouched.set(principal.key.id, at.getTime());
      await store.touchApiKey(principal.key.id, at);
    }
    c.set('principal', principal);
    await next();
  };
}
