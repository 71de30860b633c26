import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { SessionOwner, SessionRepository } from '../sessions.js';
import { type InferRow, OWNER_COLUMNS, ownerOf, sqlOf, toDate } from './rows.js';

export class KyselySessions implements SessionRepository {
  /** The query of every signed-in request, compiled once (see sqlOf). */
  private readonly ownerSql: string;

  constructor(private readonly db: Kysely<Database>) {
    this.ownerSql = sqlOf(this.ownerQuery('hash').compile(), 1);
  }

  private ownerQuery(idHash: string) {
    return this.db
      .selectFrom('sessions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .leftJoin('team_members as m', 'm.user_id', 'u.id')
      .leftJoin('teams as t', 't.id', 'm.team_id')
      .select(['s.user_id', 's.created_at', 's.last_seen_at'])
      .select(OWNER_COLUMNS)
      .where('s.id_hash', '=', idHash);
  }

  async createSession(input: { idHash: string; userId: number; at: Date }): Promise<void> {
    const at = input.at.toISOString();
    await this.db
      .insertInto('sessions')
      .values({ id_hash: input.idHash, user_id: input.userId, created_at: at, last_seen_at: at })
      .execute();
  }

  async findSessionOwner(idHash: string): Promise<SessionOwner | null> {
    type Row = InferRow<ReturnType<KyselySessions['ownerQuery']>>;
    const { rows } = await this.db.executeQuery<Row>(CompiledQuery.raw(this.ownerSql, [idHash]));
    const row = rows[0];
    if (!row) return null;
    return {
      session: {
        userId: row.user_id,
        createdAt: toDate(row.created_at),
        lastSeenAt: toDate(row.last_seen_at),
      },
      ...ownerOf(row),
    };
  }

  async touchSession(idHash: string, at: Date): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ last_seen_at: at.toISOString() })
      .where('id_hash', '=', idHash)
      .execute();
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
  }

  async deleteSessionsOfUser(userId: number): Promise<number> {
    const result = await this.db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async deleteSessionsIdleSince(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('sessions')
      .where('last_seen_at', '<', before.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
