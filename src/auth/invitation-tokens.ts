import { randomBytes } from 'node:crypto';

/**
 * A team invitation's token: 32 random bytes, base64url (43 characters). It is only ever in the
 * link; the database keeps its SHA-256 (hashToken in session-ids.ts).
 */
export function generateInvitationToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What an invitation token looks like; anything else is not looked up. */
export function looksLikeInvitationToken(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}
