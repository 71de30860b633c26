import type { Kysely } from 'kysely';
import type { Team } from '../accounts.js';
import { StoreError } from '../errors.js';
import type { Database } from '../schema.js';
import type { Membership, TeamMember, TeamRepository, TeamRole } from '../teams.js';
import { toDate, toTeam, toUser } from './rows.js';

export class KyselyTeams implements TeamRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async membershipOf(userId: number): Promise<Membership | null> {
    const row = await this.db
      .selectFrom('team_members as m')
      .innerJoin('teams as t', 't.id', 'm.team_id')
      .leftJoin('users as setter', 'setter.id', 't.hook_mode_set_by')
      .selectAll('t')
      .select(['m.role', 'setter.email as setter_email'])
      .where('m.user_id', '=', userId)
      .executeTakeFirst();
    if (!row) return null;
    return {
      team: toTeam(row),
      role: row.role,
      hookModeSetBy: row.setter_email,
      hookModeSetAt: row.hook_mode_set_at === null ? null : toDate(row.hook_mode_set_at),
    };
  }

  async listMembers(teamId: number): Promise<TeamMember[]> {
    const rows = await this.db
      .selectFrom('team_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['u.id', 'u.email', 'u.plan', 'u.created_at', 'm.role', 'm.created_at as joined_at'])
      .where('m.team_id', '=', teamId)
      .orderBy('u.email')
      .execute();
    return rows.map((row) => ({ user: toUser(row), role: row.role, joinedAt: toDate(row.joined_at) }));
  }

  async setMemberRole(teamId: number, userId: number, role: TeamRole): Promise<void> {
    const result = await this.db
      .updateTable('team_members')
      .set({ role })
      .where('team_id', '=', teamId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) {
      throw new StoreError('not-found', `user ${userId} is not in team ${teamId}`);
    }
  }

  async setHookModeBy(input: {
    teamId: number;
    mode: Team['hookMode'];
    userId: number;
    at: Date;
  }): Promise<Team> {
    const row = await this.db
      .updateTable('teams')
      .set({
        hook_mode: input.mode,
        hook_mode_set_by: input.userId,
        hook_mode_set_at: input.at.toISOString(),
      })
      .where('id', '=', input.teamId)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new StoreError('not-found', `team not found: id ${input.teamId}`);
    return toTeam(row);
  }
}
