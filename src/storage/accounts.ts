/** A user as stored. A team member's effective plan is the team's (services decide that). */
export interface User {
  id: number;
  email: string;
  plan: 'free' | 'paid';
  createdAt: Date;
}

export interface Team {
  id: number;
  name: string;
  plan: 'free' | 'paid';
  hookMode: 'block' | 'warn';
  createdAt: Date;
}

/** Users, teams and who is in which team. */
export interface AccountRepository {
  createUser(input: { email: string; plan?: User['plan'] }): Promise<User>;
  findUserByEmail(email: string): Promise<User | null>;
  setUserPlan(email: string, plan: User['plan']): Promise<User>;

  createTeam(input: { name: string; plan?: Team['plan']; hookMode?: Team['hookMode'] }): Promise<Team>;
  findTeamByName(name: string): Promise<Team | null>;
  /**
   * Adds the user to the team as `role` (default member); a user is in at most one team (moving
   * replaces the old membership).
   */
  addTeamMember(teamName: string, email: string, role?: 'owner' | 'member'): Promise<void>;
  /** An operator's change: who set the mode is cleared (shown as "an operator"). */
  setTeamHookMode(teamName: string, mode: Team['hookMode']): Promise<Team>;
  findTeamOfUser(userId: number): Promise<Team | null>;
}
