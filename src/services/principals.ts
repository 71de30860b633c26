import { bearerToken, hashApiKey } from '../auth/api-keys.js';
import type { ApiKeyRepository } from '../storage/index.js';
import { unauthenticated } from './errors.js';
import { effectivePlan, type Principal } from './vocabulary.js';

/** How often a key's last-used time is written at most: a write per request would cost the hot path. */
const TOUCH_INTERVAL_MS = 60_000;

/** Who is calling, from the `Authorization: Bearer svc_...` header. */
export interface PrincipalService {
  /**
   * The principal of the header's key, `missing` when none was sent, or `invalid`. For callers that
   * must not refuse (the hooks allow the command and say why).
   */
  lookup(authorization: string | undefined): Promise<Principal | 'missing' | 'invalid'>;
  /** The principal, or unauthenticated; notes the key's use (at most once a minute per key). */
  authenticate(authorization: string | undefined): Promise<Principal>;
}

export function createPrincipalService(apiKeys: ApiKeyRepository, now: () => Date): PrincipalService {
  const lastTouched = new Map<number, number>();
  const lookup: PrincipalService['lookup'] = async (authorization) => {
    const key = bearerToken(authorization);
    if (key === null) return 'missing';
    const owner = await apiKeys.findOwnerByKeyHash(hashApiKey(key));
    if (owner === null) return 'invalid';
    return { ...owner, plan: effectivePlan(owner.user, owner.team) };
  };
  return {
    lookup,
    async authenticate(authorization) {
      const principal = await lookup(authorization);
      if (principal === 'missing') throw unauthenticated('missing API key');
      if (principal === 'invalid') throw unauthenticated('invalid API key');
      const at = now();
      const { key } = principal;
      if (key !== null && at.getTime() - (lastTouched.get(key.id) ?? 0) >= TOUCH_INTERVAL_MS) {
        lastTouched.set(key.id, at.getTime());
        await apiKeys.touchApiKey(key.id, at);
      }
      return principal;
    },
  };
}
