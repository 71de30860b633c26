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

/** Team membership roles and the team's hook mode as members change it. */
export interface TeamRepository {
  membershipOf(userId: number): Promise<Membership | null>;
  listMembers(teamId: number): Promise<TeamMember[]>;
  /** StoreError not-found when the user is not in the team. */
  setMemberRole(teamId: number, userId: number, role: TeamRole): Promise<void>;
  /** Sets the mode and records who did it and when. */
  setHookModeBy(input: { teamId: number; mode: Team['hookMode']; userId: number; at: Date }): Promise<Team>;
}
