import type { AccountAttempts } from '../auth/account-attempts.js';
import type { CredentialRepository } from '../storage/index.js';
import { invalidInput, storageRules, unauthenticated } from './errors.js';
import type { SessionService } from './sessions.js';
import { checkPassword, MAX_PASSWORD_LENGTH, type PasswordFunctions, tooManyAttempts } from './sign-in.js';
import type { Principal } from './vocabulary.js';

export const CURRENT_PASSWORD_WRONG = 'the current password is not right';
export const NEW_PASSWORD_SAME = 'the new password is the current one; choose another';

/** A signed-in user's own account: their password, and their sessions everywhere. */
export interface AccountSecurityService {
  /** Whether the user has a password (a GitHub-only account, or one an operator made, has none). */
  hasPassword(principal: Principal): Promise<boolean>;
  /**
   * Sets a new password (the sign-up rules). The current one is required when the account has one;
   * a wrong one counts against the per-account sign-in attempts. Every session of the user ends
   * (the caller's too) and a new one starts: the id to put in the cookie.
   */
  changePassword(principal: Principal, current: string, next: string): Promise<string>;
  /** Ends every session of the user, the caller's included. */
  signOutEverywhere(principal: Principal): Promise<void>;
}

export function createAccountSecurityService(deps: {
  credentials: CredentialRepository;
  sessions: SessionService;
  passwords: PasswordFunctions;
  attempts: AccountAttempts;
}): AccountSecurityService {
  const { credentials, sessions, passwords, attempts } = deps;
  const storedHash = async (principal: Principal) =>
    (await credentials.findPasswordByUserId(principal.user.id))?.passwordHash ?? null;
  return {
    async hasPassword(principal) {
      return (await storedHash(principal)) !== null;
    },

    async changePassword(principal, current, next) {
      const { email, id } = principal.user;
      const hash = await storedHash(principal);
      if (hash !== null) {
        if (current.length === 0 || current.length > MAX_PASSWORD_LENGTH)
          throw unauthenticated(CURRENT_PASSWORD_WRONG);
        // The same count as sign-in's, before the check: a stolen session must not be a way to guess.
        const wait = await attempts.attempt(email);
        if (wait > 0) throw tooManyAttempts(wait);
        if (!(await passwords.verify(hash, current))) throw unauthenticated(CURRENT_PASSWORD_WRONG);
        await attempts.succeeded(email);
        if (current === next) throw invalidInput(NEW_PASSWORD_SAME);
      }
      await checkPassword(next);
      await storageRules(async () => credentials.setPasswordHash(id, await passwords.hash(next)));
      // Every other session ends, and this one gets a new id (whoever held the old one is out too).
      await sessions.endAll(id);
      return sessions.start(id);
    },

    async signOutEverywhere(principal) {
      await sessions.endAll(principal.user.id);
    },
  };
}
