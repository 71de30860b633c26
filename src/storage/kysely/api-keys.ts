import { CompiledQuery, type Kysely, sql } from 'kysely';
import type { Team } from '../accounts.js';
import type { ApiKeyRecord, ApiKeyRepository, KeyOwner } from '../api-keys.js';
import { StoreError } from '../errors.js';
import type { Database } from '../schema.js';
import { type InferRow, nowIso, sqlOf, toDate, toKey, toUser } from './rows.js';

export class KyselyApiKeys implements ApiKeyRepository {
  /** The query of every authenticated request, compiled once (see sqlOf). */
  private readonly ownerSql: string;

  constructor(private readonly db: Kysely<Database>) {
    this.ownerSql = sqlOf(this.ownerQuery('hash').compile(), 1);
  }

  private ownerQuery(hash: string) {
    return this.db
      .selectFrom('api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .leftJoin('team_members as m', 'm.user_id', 'u.id')
      .leftJoin('teams as t', 't.id', 'm.team_id')
      .selectAll('k')
      .select([
        'u.email',
        'u.plan as user_plan',
        'u.created_at as user_created_at',
        't.id as team_id',
        't.name as team_name',
        't.plan as team_plan',
        't.hook_mode as team_hook_mode',
        't.created_at as team_created_at',
      ])
      .where('k.hash', '=', hash)
      .where('k.revoked_at', 'is', null);
  }

  async createApiKey(input: {
    userId: number;
    name: string;
    prefix: string;
    hash: string;
  }): Promise<ApiKeyRecord> {
    // Checked up front so an unknown user is a StoreError, not a driver-specific foreign key error.
    const user = await this.db
      .selectFrom('users')
      .select('id')
      .where('id', '=', input.userId)
      .executeTakeFirst();
    if (!user) throw new StoreError('not-found', `user not found: id ${input.userId}`);
    const row = await this.db
      .insertInto('api_keys')
      .values({
        user_id: input.userId,
        name: input.name,
        prefix: input.prefix,
        hash: input.hash,
        created_at: nowIso(),
      })
      .onConflict((oc) => oc.column('hash').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new StoreError('duplicate', `api key already exists: ${input.prefix}`);
    return toKey(row);
  }

  async findOwnerByKeyHash(hash: string): Promise<KeyOwner | null> {
    // One query, as this runs on every authenticated request.
    type Row = InferRow<ReturnType<KyselyApiKeys['ownerQuery']>>;
    const { rows } = await this.db.executeQuery<Row>(CompiledQuery.raw(this.ownerSql, [hash]));
    const row = rows[0];
    if (!row) return null;
    const user = toUser({
      id: row.user_id,
      email: row.email,
      plan: row.user_plan,
      created_at: row.user_created_at,
    });
    return { key: toKey(row), user, team: joinedTeam(row) };
  }

  async revokeApiKeys(prefix: string): Promise<number> {
    // An empty prefix would match every key; revoking everything is never what an operator means.
    if (prefix === '') return 0;
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: nowIso() })
      .where('revoked_at', 'is', null)
      // Not LIKE: SQLite's LIKE ignores case and keys are case-sensitive base62.
      .where(sql<string>`substr(prefix, 1, ${prefix.length})`, '=', prefix)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async listApiKeys(userId: number): Promise<ApiKeyRecord[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
    return rows.map(toKey);
  }

  async touchApiKey(keyId: number, at: Date): Promise<void> {
    await this.db
      .updateTable('api_keys')
      .set({ last_used_at: at.toISOString() })
      .where('id', '=', keyId)
      .execute();
  }
}

interface JoinedTeamColumns {
  team_id: number | null;
  team_name: string | null;
  team_plan: Team['plan'] | null;
  team_hook_mode: Team['hookMode'] | null;
  team_created_at: Date | string | null;
}

function joinedTeam(row: JoinedTeamColumns): Team | null {
  const { team_id: id, team_name: name, team_plan: plan, team_hook_mode: hookMode } = row;
  // A left join types each column nullable on its own; they are all set or all null.
  if (id === null || name === null || plan === null || hookMode === null || row.team_created_at === null) {
    return null;
  }
  return { id, name, plan, hookMode, createdAt: toDate(row.team_created_at) };
}
