import { generateApiKey } from '../auth/api-keys.js';
import type { ApiKeyRepository } from '../storage/index.js';
import { forbidden, invalidInput, notFound, storageRules } from './errors.js';
import type { Principal } from './vocabulary.js';

const MAX_KEY_NAME_LENGTH = 100;
/** `svc_` and the 8 characters the dashboard shows. */
const PREFIX = /^svc_[0-9A-Za-z]{8}$/;

export const KEY_CANNOT_CREATE =
  'keys are created in the dashboard, signed in (spec 2.1): an API key cannot create keys';
export const KEY_REVOKES_ONLY_ITSELF =
  'an API key can revoke only itself; revoke other keys in the dashboard';

/** A key as its owner sees it in a list: never the key or its hash. */
export interface KeySummary {
  prefix: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A user's own API keys, as the dashboard and `/api/keys` manage them. */
export interface ApiKeyService {
  /** The caller's active keys, oldest first. */
  list(principal: Principal): Promise<KeySummary[]>;
  /**
   * A new key: the whole key is in this answer only (stored as a hash). Only a signed-in session may
   * (forbidden for a key): a leaked key must not mint keys that outlive its own revocation.
   */
  create(
    principal: Principal,
    name: string | undefined,
  ): Promise<{ key: string; prefix: string; name: string }>;
  /**
   * Revokes the caller's active key of this prefix; not-found for an unknown or revoked one. A key
   * may revoke itself only (forbidden otherwise): a leaked key must not take its owner's other keys down.
   */
  revoke(principal: Principal, prefix: string): Promise<void>;
}

export function createApiKeyService(apiKeys: ApiKeyRepository): ApiKeyService {
  return {
    async list(principal) {
      const keys = await apiKeys.listApiKeys(principal.user.id);
      return keys
        .filter((k) => k.revokedAt === null)
        .map(({ prefix, name, createdAt, lastUsedAt }) => ({ prefix, name, createdAt, lastUsedAt }));
    },

    async create(principal, rawName) {
      if (principal.key !== null) throw forbidden(KEY_CANNOT_CREATE);
      const name = (rawName ?? '').trim() || 'default';
      if (name.length > MAX_KEY_NAME_LENGTH) {
        throw invalidInput(`a key name may have at most ${MAX_KEY_NAME_LENGTH} characters`);
      }
      const { key, prefix, hash } = generateApiKey();
      await storageRules(() => apiKeys.createApiKey({ userId: principal.user.id, name, prefix, hash }));
      return { key, prefix, name };
    },

    async revoke(principal, prefix) {
      if (!PREFIX.test(prefix)) throw invalidInput('a key prefix is svc_ and 8 letters or digits, as listed');
      if (principal.key !== null && principal.key.prefix !== prefix) throw forbidden(KEY_REVOKES_ONLY_ITSELF);
      if ((await apiKeys.revokeUserApiKey(principal.user.id, prefix)) === 0) {
        throw notFound(`you have no active key ${prefix}`);
      }
    },
  };
}
