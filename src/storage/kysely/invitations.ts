import { type Kysely, PostgresAdapter, type Selectable } from 'kysely';
import type { Team } from '../accounts.js';
import type { InvitationRecord, InvitationRefusal, InvitationRepository } from '../invitations.js';
import type { Database, TeamInvitationsTable } from '../schema.js';
import { toDate, toTeam } from './rows.js';
import { joinIfInNoTeam } from './teams.js';
import { inWriteTransaction } from './write-transaction.js';

export class KyselyInvitations implements InvitationRepository {
  private readonly postgres: boolean;

  constructor(private readonly db: Kysely<Database>) {
    this.postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  }

  private withCreator(db: Kysely<Database> = this.db) {
    return db
      .selectFrom('team_invitations as i')
      .leftJoin('users as creator', 'creator.id', 'i.created_by')
      .selectAll('i')
      .select('creator.email as creator_email');
  }

  async createInvitation(input: {
    teamId: number;
    tokenHash: string;
    createdBy: number;
    at: Date;
    expiresAt: Date;
  }): Promise<InvitationRecord> {
    const { id } = await this.db
      .insertInto('team_invitations')
      .values({
        token_hash: input.tokenHash,
        team_id: input.teamId,
        created_by: input.createdBy,
        created_at: input.at.toISOString(),
        expires_at: input.expiresAt.toISOString(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const row = await this.withCreator().where('i.id', '=', id).executeTakeFirstOrThrow();
    return toInvitation(row);
  }

  async pendingInvitations(teamId: number, at: Date): Promise<InvitationRecord[]> {
    const rows = await this.withCreator()
      .where('i.team_id', '=', teamId)
      .where('i.used_at', 'is', null)
      .where('i.revoked_at', 'is', null)
      .where('i.expires_at', '>', at.toISOString())
      .orderBy('i.created_at', 'desc')
      .orderBy('i.id', 'desc')
      .execute();
    return rows.map(toInvitation);
  }

  async revokeInvitation(input: { teamId: number; id: number; at: Date }): Promise<boolean> {
    const result = await this.db
      .updateTable('team_invitations')
      .set({ revoked_at: input.at.toISOString() })
      .where('id', '=', input.id)
      .where('team_id', '=', input.teamId)
      .where('used_at', 'is', null)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async findInvitation(tokenHash: string): Promise<(InvitationRecord & { teamName: string }) | null> {
    const row = await this.withCreator()
      .innerJoin('teams as t', 't.id', 'i.team_id')
      .select('t.name as team_name')
      .where('i.token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row ? { ...toInvitation(row), teamName: row.team_name } : null;
  }

  async acceptInvitation(input: {
    tokenHash: string;
    userId: number;
    at: Date;
  }): Promise<{ team: Team } | { refused: InvitationRefusal }> {
    const at = input.at.toISOString();
    return inWriteTransaction(this.db, async (trx) => {
      // On PostgreSQL the row is locked: of two people accepting one link, the second waits, then
      // finds it used. SQLite runs one transaction at a time.
      const row = await trx
        .selectFrom('team_invitations')
        .selectAll()
        .where('token_hash', '=', input.tokenHash)
        .$if(this.postgres, (qb) => qb.forUpdate())
        .executeTakeFirst();
      const refused = refusalOf(row, input.at);
      if (refused !== null || row === undefined) return { refused: refused ?? 'unknown' };
      // A user already in a team is refused, and nothing is written.
      if (!(await joinIfInNoTeam(trx, { userId: input.userId, teamId: row.team_id, role: 'member', at }))) {
        return { refused: 'in-team' as const };
      }
      await trx
        .updateTable('team_invitations')
        .set({ used_at: at, used_by: input.userId })
        .where('id', '=', row.id)
        .execute();
      const team = await trx
        .selectFrom('teams')
        .selectAll()
        .where('id', '=', row.team_id)
        .executeTakeFirstOrThrow();
      return { team: toTeam(team) };
    });
  }
}

function refusalOf(row: Selectable<TeamInvitationsTable> | undefined, at: Date): InvitationRefusal | null {
  if (row === undefined) return 'unknown';
  if (row.revoked_at !== null) return 'revoked';
  if (row.used_at !== null) return 'used';
  if (toDate(row.expires_at).getTime() <= at.getTime()) return 'expired';
  return null;
}

function toInvitation(
  row: Selectable<TeamInvitationsTable> & { creator_email: string | null },
): InvitationRecord {
  return {
    id: row.id,
    teamId: row.team_id,
    createdBy: row.creator_email,
    createdAt: toDate(row.created_at),
    expiresAt: toDate(row.expires_at),
    usedAt: row.used_at === null ? null : toDate(row.used_at),
    revokedAt: row.revoked_at === null ? null : toDate(row.revoked_at),
  };
}
