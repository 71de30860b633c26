import type { User } from './accounts.js';

/** Password sign-in: a user's password hash (a PHC string; the password itself is never stored). */
export interface CredentialRepository {
  /** A new user with a password; StoreError duplicate when the email is taken. */
  createUserWithPassword(input: { email: string; passwordHash: string }): Promise<User>;
  /** The user of `email` and their hash (null when they never set a password), or null. */
  findPasswordByEmail(email: string): Promise<{ user: User; passwordHash: string | null } | null>;
  /** The user's hash (null when they never set a password); null when there is no such user. */
  findPasswordByUserId(userId: number): Promise<{ user: User; passwordHash: string | null } | null>;
  /** Sets (or replaces) the user's password hash; StoreError not-found when there is no such user. */
  setPasswordHash(userId: number, passwordHash: string): Promise<void>;
}
