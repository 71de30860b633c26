import type { User } from './accounts.js';

/** Sign-in through another platform: (provider, the provider's user id) -> one of our users. */
export interface IdentityRepository {
  findUserByIdentity(provider: string, subject: string): Promise<User | null>;
  /** Whether the user has an identity of that provider linked. */
  hasIdentity(userId: number, provider: string): Promise<boolean>;
  /** Links the identity to the user; StoreError duplicate when it is linked already. */
  linkIdentity(input: { provider: string; subject: string; userId: number }): Promise<void>;
}
