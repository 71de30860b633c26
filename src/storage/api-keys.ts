import type { Team, User } from './accounts.js';

export interface ApiKeyRecord {
  id: number;
  userId: number;
  name: string;
  /** The first 12 characters of the key (`svc_` + 8): shown in lists, used to revoke. */
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** An unrevoked key with its user and the user's team, read in one query on every request. */
export interface KeyOwner {
  key: ApiKeyRecord;
  user: User;
  team: Team | null;
}

/** API keys, stored by hash only (the caller generates a key and shows it once). */
export interface ApiKeyRepository {
  createApiKey(input: { userId: number; name: string; prefix: string; hash: string }): Promise<ApiKeyRecord>;
  findOwnerByKeyHash(hash: string): Promise<KeyOwner | null>;
  /** Revokes every unrevoked key whose prefix starts with `prefix`; returns how many. */
  revokeApiKeys(prefix: string): Promise<number>;
  /** Revokes the user's unrevoked keys of exactly this prefix (the dashboard's revoke); returns how many. */
  revokeUserApiKey(userId: number, prefix: string): Promise<number>;
  listApiKeys(userId: number): Promise<ApiKeyRecord[]>;
  touchApiKey(keyId: number, at: Date): Promise<void>;
}
