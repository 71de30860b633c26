import type { User } from './accounts.js';

/** A one-time password link as stored: its user, and when it stops working. */
export interface PasswordLinkRecord {
  user: User;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * One-time links where a user sets a password, stored by the hash of their token only (the token
 * is in the link alone). A user has at most one: saving a new one replaces the one before.
 */
export interface PasswordLinkRepository {
  /** Stores the user's link, replacing any earlier one of theirs. */
  savePasswordLink(input: { tokenHash: string; userId: number; at: Date; expiresAt: Date }): Promise<void>;
  /** The link and its user, expired or not; null when there is none (never made, used or replaced). */
  findPasswordLink(tokenHash: string): Promise<PasswordLinkRecord | null>;
  /**
   * Deletes the link and returns its user id, when it is still valid at `at`: of two requests racing
   * with one link, exactly one gets it.
   */
  takePasswordLink(tokenHash: string, at: Date): Promise<number | null>;
  /** Deletes links that expired before `before`; returns how many. */
  deletePasswordLinksExpiredBefore(before: Date): Promise<number>;
}
