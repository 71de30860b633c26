import { type AccountAttempts, createAccountAttempts } from '../auth/account-attempts.js';
import { passwordWeakness } from '../auth/password-strength.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../auth/passwords.js';
import { type CredentialRepository, StoreError, type User } from '../storage/index.js';
import { normalizeEmail } from './emails.js';
import { DomainError, invalidInput, quotaExhausted, unauthenticated } from './errors.js';

export const MIN_PASSWORD_LENGTH = 12;
/** Longer passwords are refused rather than hashed: a megabyte of password is a denial of service. */
export const MAX_PASSWORD_LENGTH = 1024;

/** The one answer of every failed sign-in: it never says whether the email has an account. */
export const SIGN_IN_FAILED = 'wrong email or password';
/** The answer to a sign-up with a taken email whose password does not match (see docs/ARCHITECTURE.md). */
export const SIGN_UP_TAKEN = 'this email cannot be used for a new account; if it is yours, sign in instead';

/**
 * Too many password attempts on one email (from any address): the same words whether or not the email
 * has an account, and said before any password is checked.
 */
export const tooManyAttempts = (retryAfterSeconds: number) =>
  quotaExhausted(
    `too many sign-in attempts for this email; try again in ${Math.ceil(retryAfterSeconds / 60)} minutes, or sign in with GitHub`,
    retryAfterSeconds,
  );

/** Email and password accounts. */
export interface SignInService {
  /**
   * A new account, or the existing one when the email is taken and the password is its password
   * (the user meant to sign in); conflict otherwise.
   */
  signUp(email: string, password: string): Promise<User>;
  /** The user, or unauthenticated with SIGN_IN_FAILED whatever went wrong. */
  signIn(email: string, password: string): Promise<User>;
}

export const PASSWORD_LEAKED = 'this password is among well-known leaked passwords; choose another';
export const PASSWORD_GUESSABLE =
  'this password is too easy to guess (a common password with a few characters added, a repeat, a sequence or a keyboard pattern); choose another';

/**
 * A password someone may set (sign-up, a one-time link, a change): 12 to 1024 characters, and not one
 * that guessing lists try first.
 */
export async function checkPassword(password: string): Promise<void> {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw invalidInput(`the password needs at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw invalidInput(`the password may have at most ${MAX_PASSWORD_LENGTH} characters`);
  }
  const weakness = await passwordWeakness(password);
  if (weakness === 'leaked') throw invalidInput(PASSWORD_LEAKED);
  if (weakness === 'guessable') throw invalidInput(PASSWORD_GUESSABLE);
}

/** The password functions sign-in uses; tests observe them (which hash each sign-in verified against). */
export interface PasswordFunctions {
  hash(password: string): Promise<string>;
  verify(phc: string, password: string): Promise<boolean>;
  dummy(): Promise<string>;
}

export const ARGON2: PasswordFunctions = {
  hash: hashPassword,
  verify: verifyPassword,
  dummy: dummyPasswordHash,
};

export function createSignInService(
  credentials: CredentialRepository,
  passwords: PasswordFunctions = ARGON2,
  /** Counted per email across instances (Redis) in the service; a fresh in-memory count by default. */
  attempts: AccountAttempts = createAccountAttempts(),
): SignInService {
  /** Counts a password check on `email`; refused (429) over the per-account limit. */
  const counted = async (email: string) => {
    const wait = await attempts.attempt(email);
    if (wait > 0) throw tooManyAttempts(wait);
  };
  /** Verifies against the user's hash, or a dummy one, so both paths cost one argon2 verification. */
  const matches = async (found: { passwordHash: string | null } | null, password: string) => {
    const ok = await passwords.verify(found?.passwordHash ?? (await passwords.dummy()), password);
    return ok && found?.passwordHash != null;
  };
  return {
    async signUp(rawEmail, password) {
      const email = normalizeEmail(rawEmail);
      await checkPassword(password);
      const passwordHash = await passwords.hash(password);
      try {
        return await credentials.createUserWithPassword({ email, passwordHash });
      } catch (e) {
        if (!(e instanceof StoreError && e.code === 'duplicate')) throw e;
      }
      // A taken email's password is checked below: that is a sign-in attempt, counted as one, or
      // sign-up would be a way around the per-account limit.
      await counted(email);
      const found = await credentials.findPasswordByEmail(email);
      if (found !== null && (await matches(found, password))) {
        await attempts.succeeded(email);
        return found.user;
      }
      throw new DomainError('conflict', SIGN_UP_TAKEN);
    },

    async signIn(rawEmail, password) {
      const email = normalizeEmail(rawEmail);
      if (password.length === 0 || password.length > MAX_PASSWORD_LENGTH)
        throw unauthenticated(SIGN_IN_FAILED);
      // Counted for every email, with or without an account: the limit must not tell which exist.
      await counted(email);
      const found = await credentials.findPasswordByEmail(email);
      // matches() runs whether or not the email has an account: the time taken must not tell.
      const ok = await matches(found, password);
      if (found === null || !ok) throw unauthenticated(SIGN_IN_FAILED);
      await attempts.succeeded(email);
      return found.user;
    },
  };
}
