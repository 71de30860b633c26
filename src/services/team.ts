import type { Membership, Team, TeamMember, TeamRepository } from '../storage/index.js';
import { INVISIBLE } from './emails.js';
import { DomainError, forbidden, invalidInput, notFound } from './errors.js';
import { isHookMode, type Principal } from './vocabulary.js';

export interface TeamView extends Membership {
  members: TeamMember[];
}

export const MAX_TEAM_NAME_LENGTH = 64;

/**
 * A team's name as every entry point takes it (the dashboard and svc admin create-team): plain spaces
 * around it dropped, NFC, 1 to 64 characters, none of them invisible, control or formatting ones
 * (two teams must not look alike). Names are unique as typed.
 */
export function teamName(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.replace(/^ +| +$/g, '').normalize('NFC') : '';
  if (name === '') throw invalidInput('enter a name for the team');
  if (INVISIBLE.test(name)) {
    throw invalidInput('the team name holds an invisible, control or formatting character; type it again');
  }
  if ([...name].length > MAX_TEAM_NAME_LENGTH) {
    throw invalidInput(`a team name has at most ${MAX_TEAM_NAME_LENGTH} characters`);
  }
  return name;
}

/** A user's team as members see it; what owners and members do with it in the dashboard. */
export interface TeamService {
  /** The caller's team with its members, or null when they are in none. */
  teamOf(principal: Principal): Promise<TeamView | null>;
  /** Only an owner changes the mode (forbidden otherwise); who did it is recorded and shown. */
  setMode(principal: Principal, mode: unknown): Promise<Team>;
  /**
   * A new team with the caller as its owner, on the caller's own plan (operators change a team's
   * plan with svc admin), in block mode. Refused when the caller is in a team or the name is taken.
   */
  createTeam(principal: Principal, name: unknown): Promise<Team>;
  /** A member of the caller's team, for an owner (what the remove confirmation names). */
  memberOf(principal: Principal, userId: unknown): Promise<TeamMember>;
  /** An owner makes another member an owner. */
  makeOwner(principal: Principal, userId: unknown): Promise<TeamMember>;
  /** An owner takes another member out of the team (themselves: they leave). */
  removeMember(principal: Principal, userId: unknown): Promise<TeamMember>;
  /**
   * The caller leaves their team; the last member's leaving deletes it. The last owner cannot leave
   * while others remain (they make another owner first).
   */
  leave(principal: Principal): Promise<{ team: Team; deleted: boolean }>;
}

const conflict = (message: string) => new DomainError('conflict', message);

/** The caller's team when they own it: not-found outside a team, forbidden for a member. */
export async function ownersTeamOf(teams: TeamRepository, principal: Principal, what: string): Promise<Team> {
  const membership = await teams.membershipOf(principal.user.id);
  if (membership === null) throw notFound('you are not in a team');
  if (membership.role !== 'owner') throw forbidden(`only a team owner can ${what}`);
  return membership.team;
}

/** A positive integer id from a form field; NaN for anything else. */
export const idOf = (value: unknown): number =>
  typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : Number.NaN;

export function createTeamService(teams: TeamRepository, now: () => Date): TeamService {
  const membershipOf = async (principal: Principal) => {
    const membership = await teams.membershipOf(principal.user.id);
    if (membership === null) throw notFound('you are not in a team');
    return membership;
  };
  const ownersTeam = (principal: Principal, what: string) => ownersTeamOf(teams, principal, what);
  /** The member `userId` names in the owner's team (the caller's own row refused for `self`). */
  const memberFor = async (principal: Principal, userId: unknown, what: string, self?: string) => {
    const team = await ownersTeam(principal, what);
    const id = idOf(userId);
    const member = (await teams.listMembers(team.id)).find((m) => m.user.id === id);
    if (member === undefined) throw notFound(`no such member in ${team.name}`);
    if (self !== undefined && member.user.id === principal.user.id) throw invalidInput(self);
    return { team, member };
  };

  return {
    async teamOf(principal) {
      const membership = await teams.membershipOf(principal.user.id);
      if (membership === null) return null;
      return { ...membership, members: await teams.listMembers(membership.team.id) };
    },

    async setMode(principal, mode) {
      if (typeof mode !== 'string' || !isHookMode(mode)) throw invalidInput('mode must be "block" or "warn"');
      const team = await ownersTeam(principal, 'change the hook mode');
      return teams.setHookModeBy({ teamId: team.id, mode, userId: principal.user.id, at: now() });
    },

    async createTeam(principal, rawName) {
      const name = teamName(rawName);
      const result = await teams.createTeamWithOwner({
        name,
        plan: principal.user.plan,
        ownerId: principal.user.id,
        at: now(),
      });
      if ('team' in result) return result.team;
      throw conflict(
        result.refused === 'in-team'
          ? 'you are in a team already: leave it first to create another'
          : `a team named "${name}" exists already: choose another name`,
      );
    },

    memberOf: async (principal, userId) => (await memberFor(principal, userId, 'remove members')).member,

    async makeOwner(principal, userId) {
      const { team, member } = await memberFor(principal, userId, 'make owners');
      if (member.role === 'owner') return member;
      await teams.setMemberRole(team.id, member.user.id, 'owner');
      return { ...member, role: 'owner' };
    },

    async removeMember(principal, userId) {
      const { team, member } = await memberFor(
        principal,
        userId,
        'remove members',
        'you cannot remove yourself: leave the team instead',
      );
      const outcome = await teams.removeMember(team.id, member.user.id);
      if (outcome === 'not-member') throw notFound(`no such member in ${team.name}`);
      return member;
    },

    async leave(principal) {
      const { team } = await membershipOf(principal);
      const outcome = await teams.removeMember(team.id, principal.user.id);
      if (outcome === 'not-member') throw notFound('you are not in a team');
      if (outcome === 'last-owner') {
        throw conflict(
          `you are the only owner of ${team.name}: make another member an owner first, then leave`,
        );
      }
      return { team, deleted: outcome === 'team-deleted' };
    },
  };
}
