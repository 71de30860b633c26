import type { Membership, Team, TeamMember, TeamRepository } from '../storage/index.js';
import { forbidden, invalidInput, notFound } from './errors.js';
import { isHookMode, type Principal } from './vocabulary.js';

export interface TeamView extends Membership {
  members: TeamMember[];
}

/** A user's team as members see it, and the hook mode its owners switch. */
export interface TeamService {
  /** The caller's team with its members, or null when they are in none. */
  teamOf(principal: Principal): Promise<TeamView | null>;
  /** Only an owner changes the mode (forbidden otherwise); who did it is recorded and shown. */
  setMode(principal: Principal, mode: unknown): Promise<Team>;
}

export function createTeamService(teams: TeamRepository, now: () => Date): TeamService {
  return {
    async teamOf(principal) {
      const membership = await teams.membershipOf(principal.user.id);
      if (membership === null) return null;
      return { ...membership, members: await teams.listMembers(membership.team.id) };
    },

    async setMode(principal, mode) {
      if (typeof mode !== 'string' || !isHookMode(mode)) throw invalidInput('mode must be "block" or "warn"');
      const membership = await teams.membershipOf(principal.user.id);
      if (membership === null) throw notFound('you are not in a team');
      if (membership.role !== 'owner') throw forbidden('only a team owner can change the hook mode');
      return teams.setHookModeBy({ teamId: membership.team.id, mode, userId: principal.user.id, at: now() });
    },
  };
}
