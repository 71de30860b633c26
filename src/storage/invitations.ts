import type { Team } from './accounts.js';

/** A team invitation as owners see it (never its token, which is stored only hashed). */
export interface InvitationRecord {
  id: number;
  teamId: number;
  /** The email of the owner who made it; null once that user is gone. */
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
}

/** Why an invitation could not be accepted. */
export type InvitationRefusal = 'unknown' | 'expired' | 'used' | 'revoked' | 'in-team';

/** Single-use links into a team, by the SHA-256 of their token. */
export interface InvitationRepository {
  createInvitation(input: {
    teamId: number;
    tokenHash: string;
    createdBy: number;
    at: Date;
    expiresAt: Date;
  }): Promise<InvitationRecord>;
  /** The team's invitations neither used, revoked nor expired at `at`, newest first. */
  pendingInvitations(teamId: number, at: Date): Promise<InvitationRecord[]>;
  /** Revokes a pending invitation of the team; false when there is none with that id. */
  revokeInvitation(input: { teamId: number; id: number; at: Date }): Promise<boolean>;
  /** The invitation with its team's name, whatever its state; null for an unknown hash. */
  findInvitation(tokenHash: string): Promise<(InvitationRecord & { teamName: string }) | null>;
  /**
   * In one transaction: the invitation used up by the user, and the user a member of its team; or
   * nothing at all and why (a user in a team already is refused: they leave first).
   */
  acceptInvitation(input: {
    tokenHash: string;
    userId: number;
    at: Date;
  }): Promise<{ team: Team } | { refused: InvitationRefusal }>;
}
