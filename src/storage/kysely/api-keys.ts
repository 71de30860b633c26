import { CompiledQuery, type Kysely, sql } from 'kysely';
import type { ApiKeyRecord, ApiKeyRepository, KeyOwner } from '../api-keys.js';
import { StoreError } from '../errors.js';
import type { Database } from '../schema.js';
import { type InferRow, nowIso, OWNER_COLUMNS, ownerOf, sqlOf, toKey } from './rows.js';

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
      .select(OWNER_COLUMNS)
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
    return { key: toKey(row), ...ownerOf(row) };
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

  async revokeUserApiKey(userId: number, prefix: string): Promise<number> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: nowIso() })
      .where('user_id', '=', userId)
      .where('prefix', '=', prefix)
      .where('revoked_at', 'is', null)
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
