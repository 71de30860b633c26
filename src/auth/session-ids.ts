import { createHash, randomBytes } from 'node:crypto';

/** A new session id: 32 random bytes, base64url (43 characters). Only the cookie holds it. */
export function generateSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/** The stored form of a session id or OAuth state: SHA-256, hex (256 random bits need no salt). */
export function hashToken(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** What a session id looks like; anything else is not looked up. */
export function looksLikeSessionId(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}
