import type { Team, User } from './accounts.js';

export interface SessionRecord {
  userId: number;
  createdAt: Date;
  lastSeenAt: Date;
}

/** A session with its user and the user's team, read in one query on every signed-in request. */
export interface SessionOwner {
  session: SessionRecord;
  user: User;
  team: Team | null;
}

/** Dashboard sessions, stored by the hash of their id only (the id is in the cookie alone). */
export interface SessionRepository {
  createSession(input: { idHash: string; userId: number; at: Date }): Promise<void>;
  findSessionOwner(idHash: string): Promise<SessionOwner | null>;
  touchSession(idHash: string, at: Date): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Deletes every session of the user (sign out everywhere, a new password); returns how many. */
  deleteSessionsOfUser(userId: number): Promise<number>;
  /** Deletes sessions not seen since `before`; returns how many. */
  deleteSessionsIdleSince(before: Date): Promise<number>;
}
