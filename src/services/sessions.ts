import { generateSessionId, hashToken, looksLikeSessionId } from '../auth/session-ids.js';
import type { SessionRepository } from '../storage/index.js';
import { unauthenticated } from './errors.js';
import { effectivePlan, type Principal } from './vocabulary.js';

/** A session ends after 30 days without a request (idle expiry; every request extends it). */
export const SESSION_IDLE_MS = 30 * 24 * 60 * 60 * 1000;
/** How often a session's last-seen time is written at most: a write per page view buys nothing. */
const TOUCH_INTERVAL_MS = 60_000;

export const SESSION_EXPIRED = 'your session has expired; sign in again';
export const NOT_SIGNED_IN = 'not signed in';

/**
 * Dashboard sessions, kept in the database so that sign-out and expiry hold on every instance. The
 * id (32 random bytes) is in the cookie only; the table holds its SHA-256.
 */
export interface SessionService {
  /** A new session for the user; the id to put in the cookie. */
  start(userId: number): Promise<string>;
  /** The session's principal (no key), or unauthenticated: not signed in, or expired. */
  authenticate(sessionId: string | undefined): Promise<Principal>;
  /** Ends the session (deletes its row); nothing happens for an unknown id. */
  end(sessionId: string | undefined): Promise<void>;
  /** Ends every session of the user, on every instance (a new password, sign out everywhere). */
  endAll(userId: number): Promise<void>;
}

export function createSessionService(sessions: SessionRepository, now: () => Date): SessionService {
  return {
    async start(userId) {
      const at = now();
      // Expired rows are dropped here rather than by a timer: sign-ins are rare and any instance may do it.
      await sessions.deleteSessionsIdleSince(new Date(at.getTime() - SESSION_IDLE_MS));
      const id = generateSessionId();
      await sessions.createSession({ idHash: hashToken(id), userId, at });
      return id;
    },

    async authenticate(sessionId) {
      if (sessionId === undefined || !looksLikeSessionId(sessionId)) throw unauthenticated(NOT_SIGNED_IN);
      const idHash = hashToken(sessionId);
      const owner = await sessions.findSessionOwner(idHash);
      if (owner === null) throw unauthenticated(NOT_SIGNED_IN);
      const at = now();
      const idle = at.getTime() - owner.session.lastSeenAt.getTime();
      if (idle > SESSION_IDLE_MS) {
        await sessions.deleteSession(idHash);
        throw unauthenticated(SESSION_EXPIRED);
      }
      if (idle >= TOUCH_INTERVAL_MS) await sessions.touchSession(idHash, at);
      return { user: owner.user, team: owner.team, key: null, plan: effectivePlan(owner.user, owner.team) };
    },

    async end(sessionId) {
      if (sessionId !== undefined && looksLikeSessionId(sessionId))
        await sessions.deleteSession(hashToken(sessionId));
    },

    async endAll(userId) {
      await sessions.deleteSessionsOfUser(userId);
    },
  };
}
