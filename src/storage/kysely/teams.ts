import { type Kysely, PostgresAdapter } from 'kysely';
import type { Team } from '../accounts.js';
import { StoreError } from '../errors.js';
import type { Database } from '../schema.js';
import type { Membership, RemovalOutcome, TeamMember, TeamRepository, TeamRole } from '../teams.js';
import { toDate, toTeam, toUser } from './rows.js';
import { inWriteTransaction } from './write-transaction.js';

/**
 * Makes the user a member of the team unless they are in a team already (then nothing is written and
 * the answer is false). user_id is the key of team_members, so this holds against racing writers too.
 */
export async function joinIfInNoTeam(
  db: Kysely<Database>,
  input: { userId: number; teamId: number; role: TeamRole; at: string },
): Promise<boolean> {
  const added = await db
    .insertInto('team_members')
    .values({ user_id: input.userId, team_id: input.teamId, created_at: input.at, role: input.role })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .returning('user_id')
    .executeTakeFirst();
  return added !== undefined;
}

/** Thrown to roll a new team back when its owner turns out to be in a team. */
class InTeamAlready extends Error {}

export class KyselyTeams implements TeamRepository {
  private readonly postgres: boolean;

  constructor(private readonly db: Kysely<Database>) {
    this.postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  }

  async createTeamWithOwner(input: {
    name: string;
    plan: Team['plan'];
    ownerId: number;
    at: Date;
  }): Promise<{ team: Team } | { refused: 'name-taken' | 'in-team' }> {
    const at = input.at.toISOString();
    try {
      return await inWriteTransaction(this.db, async (trx) => {
        const row = await trx
          .insertInto('teams')
          .values({ name: input.name, plan: input.plan, hook_mode: 'block', created_at: at })
          .onConflict((oc) => oc.column('name').doNothing())
          .returningAll()
          .executeTakeFirst();
        if (!row) return { refused: 'name-taken' as const };
        // user_id is the key of team_members: a user in a team (even one who joined a moment ago, in
        // a racing transaction) inserts nothing, and the new team is rolled back.
        const added = await joinIfInNoTeam(trx, { userId: input.ownerId, teamId: row.id, role: 'owner', at });
        if (!added) throw new InTeamAlready();
        return { team: toTeam(row) };
      });
    } catch (e) {
      if (e instanceof InTeamAlready) return { refused: 'in-team' };
      throw e;
    }
  }

  async removeMember(teamId: number, userId: number): Promise<RemovalOutcome> {
    return inWriteTransaction(this.db, async (trx) => {
      // On PostgreSQL the team row is locked, so that two owners leaving at once cannot both pass the
      // last-owner check. SQLite runs one transaction at a time.
      const team = await trx
        .selectFrom('teams')
        .select('id')
        .where('id', '=', teamId)
        .$if(this.postgres, (qb) => qb.forUpdate())
        .executeTakeFirst();
      if (team === undefined) return 'not-member';
      const members = await trx
        .selectFrom('team_members')
        .select(['user_id', 'role'])
        .where('team_id', '=', teamId)
        .execute();
      const leaving = members.find((m) => m.user_id === userId);
      if (leaving === undefined) return 'not-member';
      if (members.length === 1) {
        await trx.deleteFrom('teams').where('id', '=', teamId).execute();
        return 'team-deleted';
      }
      if (leaving.role === 'owner' && members.filter((m) => m.role === 'owner').length === 1) {
        return 'last-owner';
      }
      await trx
        .deleteFrom('team_members')
        .where('team_id', '=', teamId)
        .where('user_id', '=', userId)
        .execute();
      return 'removed';
    });
  }

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
