import type { AccountAttempts } from '../auth/account-attempts.js';
import { generateSessionId, hashToken, looksLikeSessionId } from '../auth/session-ids.js';
import type { CredentialRepository, PasswordLinkRepository, User } from '../storage/index.js';
import { normalizeEmail } from './emails.js';
import { notFound, storageRules } from './errors.js';
import type { SessionService } from './sessions.js';
import { checkPassword, type PasswordFunctions } from './sign-in.js';

/** How long a one-time password link works (contract 6: 24 hours). */
export const PASSWORD_LINK_MS = 24 * 60 * 60 * 1000;

export const LINK_EXPIRED =
  'this link has expired (links work for 24 hours); ask your operator for a new one';
export const LINK_INVALID =
  'this link does not work: it was used already, a newer link replaced it, or it was copied incompletely; ask your operator for a new one';

/** Where a link's token goes: in the query, whose values the request log never writes (server/middleware/request-log.ts). */
export const SET_PASSWORD_PATH = '/auth/set-password';

/** The link printed by `svc admin` for a token: on the service's public URL. */
export function passwordLinkUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${SET_PASSWORD_PATH}?token=${token}`;
}

/**
 * One-time links where a user sets their password (`svc admin create-user`, `svc admin
 * reset-password`): 32 random bytes, stored only as their SHA-256, single use, 24 hours, one live
 * link per user (a new one replaces the old).
 */
export interface PasswordLinkService {
  /** A new link's token for the user of `email` (not-found when there is none); older links stop working. */
  issue(email: string): Promise<{ token: string; user: User; expiresAt: Date }>;
  /** The user a valid link is for; not-found with LINK_INVALID or LINK_EXPIRED otherwise. */
  check(token: string): Promise<User>;
  /**
   * Sets the password (the sign-up rules; the link is kept when the password is refused), uses up
   * the link, ends every session of the user and starts a new one: the id to put in the cookie.
   */
  redeem(token: string, password: string): Promise<{ user: User; sessionId: string }>;
}

export function createPasswordLinkService(deps: {
  links: PasswordLinkRepository;
  credentials: CredentialRepository;
  sessions: SessionService;
  passwords: PasswordFunctions;
  /** The per-account sign-in attempts: a password set by link starts its owner's count again. */
  attempts: AccountAttempts;
  now: () => Date;
}): PasswordLinkService {
  const { links, now } = deps;
  /** The link's record when it exists and is still valid, else the page's reason. */
  const valid = async (token: string) => {
    // Anything that cannot be a token is not looked up (nor is its hash).
    const found = looksLikeSessionId(token) ? await links.findPasswordLink(hashToken(token)) : null;
    if (found === null) throw notFound(LINK_INVALID);
    if (found.expiresAt.getTime() <= now().getTime()) throw notFound(LINK_EXPIRED);
    return found;
  };
  return {
    async issue(rawEmail) {
      const email = normalizeEmail(rawEmail);
      const found = await deps.credentials.findPasswordByEmail(email);
      if (found === null) throw notFound(`user not found: ${email}`);
      const at = now();
      // Expired rows are dropped here rather than by a timer, as sessions are at sign-in.
      await links.deletePasswordLinksExpiredBefore(at);
      const token = generateSessionId();
      const expiresAt = new Date(at.getTime() + PASSWORD_LINK_MS);
      await links.savePasswordLink({ tokenHash: hashToken(token), userId: found.user.id, at, expiresAt });
      return { token, user: found.user, expiresAt };
    },

    async check(token) {
      return (await valid(token)).user;
    },

    async redeem(token, password) {
      const { user } = await valid(token);
      // Checked before the link is used up: a refused password leaves the link working.
      await checkPassword(password);
      const passwordHash = await deps.passwords.hash(password);
      // Taken once: of two posts with one link (or one that expired meanwhile), one at most goes on.
      const userId = await links.takePasswordLink(hashToken(token), now());
      if (userId === null) throw notFound(LINK_INVALID);
      await storageRules(() => deps.credentials.setPasswordHash(userId, passwordHash));
      await deps.sessions.endAll(userId);
      await deps.attempts.succeeded(user.email);
      return { user, sessionId: await deps.sessions.start(userId) };
    },
  };
}
