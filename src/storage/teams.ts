import type { Team, User } from './accounts.js';

export type TeamRole = 'owner' | 'member';

export interface TeamMember {
  user: User;
  role: TeamRole;
  joinedAt: Date;
}

/** A user's team as the dashboard shows it: their role, and who set the hook mode last. */
export interface Membership {
  team: Team;
  role: TeamRole;
  /** The email of who set the mode last, or null (set by an operator, or never). */
  hookModeSetBy: string | null;
  hookModeSetAt: Date | null;
}

/** What taking a member out of a team did (or why it did nothing). */
export type RemovalOutcome = 'removed' | 'team-deleted' | 'last-owner' | 'not-member';

/** Team membership roles and the team's hook mode as members change it. */
export interface TeamRepository {
  membershipOf(userId: number): Promise<Membership | null>;
  listMembers(teamId: number): Promise<TeamMember[]>;
  /** StoreError not-found when the user is not in the team. */
  setMemberRole(teamId: number, userId: number, role: TeamRole): Promise<void>;
  /**
   * A new team with the user as its owner, in one transaction; nothing is written when the name is
   * taken or the user is in a team already.
   */
  createTeamWithOwner(input: {
    name: string;
    plan: Team['plan'];
    ownerId: number;
    at: Date;
  }): Promise<{ team: Team } | { refused: 'name-taken' | 'in-team' }>;
  /**
   * Takes the user out of the team, keeping its invariant in one transaction: while a team has
   * members, one of them is an owner (the last owner is refused while others remain), and the last
   * member's leaving deletes the team (its invitations with it).
   */
  removeMember(teamId: number, userId: number): Promise<RemovalOutcome>;
  /** Sets the mode and records who did it and when. */
  setHookModeBy(input: { teamId: number; mode: Team['hookMode']; userId: number; at: Date }): Promise<Team>;
}
