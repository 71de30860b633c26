import { CompiledQuery, type Kysely, type Selectable, sql } from 'kysely';
import type { ApiKeysTable, Database, TeamsTable, UsersTable } from './schema.js';
import {
  type ApiKeyRecord,
  type CountResult,
  type HookDecisionInput,
  type HookDecisionRecord,
  type HookMode,
  type Plan,
  type Principal,
  type Store,
  StoreError,
  type Team,
  type UsageAccount,
  type User,
} from './store.js';

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** The one `Store` over Kysely; every query here runs unchanged on SQLite and PostgreSQL. */
export class KyselyStore implements Store {
  /**
   * The two queries of every authenticated request, compiled once: building a query through Kysely
   * each time cost a tenth of the request (npm run bench:http). Only the bound values change.
   */
  private readonly principalSql: string;
  private readonly usageSql: string;

  constructor(private readonly db: Kysely<Database>) {
    this.principalSql = sqlOf(this.principalQuery('hash').compile(), 1);
    this.usageSql = sqlOf(this.usageQuery({ kind: 'user', id: 0 }, 'YYYY-MM').compile(), 3);
  }

  private principalQuery(hash: string) {
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

  private usageQuery(account: UsageAccount, month: string) {
    return this.db
      .selectFrom('ci_run_usage')
      .select('runs')
      .where('account_kind', '=', account.kind)
      .where('account_id', '=', account.id)
      .where('month', '=', month);
  }

  async createUser(input: { email: string; plan?: Plan }): Promise<User> {
    const email = normalizeEmail(input.email);
    // ON CONFLICT DO NOTHING instead of catching the unique violation: the two drivers report it
    // with different error shapes, and a racing duplicate still ends here as "no row".
    const row = await this.db
      .insertInto('users')
      .values({ email, plan: input.plan ?? 'free', created_at: now() })
      .onConflict((oc) => oc.column('email').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new StoreError('duplicate', `user already exists: ${email}`);
    return toUser(row);
  }

  async findUserByEmail(email: string): Promise<User | null> {
    const row = await this.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', normalizeEmail(email))
      .executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async setUserPlan(email: string, plan: Plan): Promise<User> {
    const row = await this.db
      .updateTable('users')
      .set({ plan })
      .where('email', '=', normalizeEmail(email))
      .returningAll()
      .executeTakeFirst();
    if (!row) throw userNotFound(email);
    return toUser(row);
  }

  async createTeam(input: { name: string; plan?: Plan; hookMode?: HookMode }): Promise<Team> {
    const row = await this.db
      .insertInto('teams')
      .values({
        name: input.name,
        plan: input.plan ?? 'free',
        hook_mode: input.hookMode ?? 'block',
        created_at: now(),
      })
      .onConflict((oc) => oc.column('name').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new StoreError('duplicate', `team already exists: ${input.name}`);
    return toTeam(row);
  }

  async findTeamByName(name: string): Promise<Team | null> {
    const row = await this.db.selectFrom('teams').selectAll().where('name', '=', name).executeTakeFirst();
    return row ? toTeam(row) : null;
  }

  async addTeamMember(teamName: string, email: string): Promise<void> {
    const team = await this.findTeamByName(teamName);
    if (!team) throw teamNotFound(teamName);
    const user = await this.findUserByEmail(email);
    if (!user) throw userNotFound(email);
    // user_id is the key, so one upsert both adds and moves: there is never a moment with two teams.
    await this.db
      .insertInto('team_members')
      .values({ user_id: user.id, team_id: team.id, created_at: now() })
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet({
          team_id: (eb) => eb.ref('excluded.team_id'),
          created_at: (eb) => eb.ref('excluded.created_at'),
        }),
      )
      .execute();
  }

  async setTeamHookMode(teamName: string, mode: HookMode): Promise<Team> {
    const row = await this.db
      .updateTable('teams')
      .set({ hook_mode: mode })
      .where('name', '=', teamName)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw teamNotFound(teamName);
    return toTeam(row);
  }

  async findTeamOfUser(userId: number): Promise<Team | null> {
    const row = await this.db
      .selectFrom('team_members')
      .innerJoin('teams', 'teams.id', 'team_members.team_id')
      .selectAll('teams')
      .where('team_members.user_id', '=', userId)
      .executeTakeFirst();
    return row ? toTeam(row) : null;
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
        created_at: now(),
      })
      .onConflict((oc) => oc.column('hash').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new StoreError('duplicate', `api key already exists: ${input.prefix}`);
    return toKey(row);
  }

  async findPrincipalByKeyHash(hash: string): Promise<Principal | null> {
    // One query, as this runs on every authenticated request.
    type Row = InferRow<ReturnType<KyselyStore['principalQuery']>>;
    const { rows } = await this.db.executeQuery<Row>(CompiledQuery.raw(this.principalSql, [hash]));
    const row = rows[0];
    if (!row) return null;
    const user = toUser({
      id: row.user_id,
      email: row.email,
      plan: row.user_plan,
      created_at: row.user_created_at,
    });
    const team = joinedTeam(row);
    return { user, key: toKey(row), team, plan: team ? team.plan : user.plan };
  }

  async revokeApiKeys(prefix: string): Promise<number> {
    // An empty prefix would match every key; revoking everything is never what an operator means.
    if (prefix === '') return 0;
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: now() })
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

  async countCiRun(account: UsageAccount, month: string, limit: number): Promise<CountResult> {
    if (!MONTH.test(month)) throw new Error(`month must be YYYY-MM, got: ${month}`);
    if (limit <= 0) return { counted: false, used: await this.ciRunsUsed(account, month) };
    // One statement, so the check and the increment cannot be split by another caller: SQLite runs
    // it under its single write lock, PostgreSQL under the row lock ON CONFLICT takes and re-checks
    // the WHERE against. No row back means the guard refused: the limit is reached.
    const row = await this.db
      .insertInto('ci_run_usage')
      .values({ account_kind: account.kind, account_id: account.id, month, runs: 1 })
      .onConflict((oc) =>
        oc
          .columns(['account_kind', 'account_id', 'month'])
          .doUpdateSet({ runs: sql<number>`ci_run_usage.runs + 1` })
          .where('ci_run_usage.runs', '<', limit),
      )
      .returning('runs')
      .executeTakeFirst();
    if (row) return { counted: true, used: Number(row.runs) };
    return { counted: false, used: await this.ciRunsUsed(account, month) };
  }

  async ciRunsUsed(account: UsageAccount, month: string): Promise<number> {
    type Row = InferRow<ReturnType<KyselyStore['usageQuery']>>;
    const params = [account.kind, account.id, month];
    const { rows } = await this.db.executeQuery<Row>(CompiledQuery.raw(this.usageSql, params));
    return rows[0] ? Number(rows[0].runs) : 0;
  }

  async recordHookDecision(input: HookDecisionInput): Promise<void> {
    await this.db
      .insertInto('hook_decisions')
      .values({
        user_id: input.userId,
        agent: input.agent,
        mode: input.mode,
        decision: input.decision,
        packages: JSON.stringify(input.packages),
        reasons: JSON.stringify(input.reasons),
        created_at: input.at.toISOString(),
      })
      .execute();
  }

  async listHookDecisions(userId: number, limit: number): Promise<HookDecisionRecord[]> {
    const rows = await this.db
      .selectFrom('hook_decisions')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      id: r.id,
      userId: r.user_id,
      agent: r.agent,
      mode: r.mode,
      decision: r.decision,
      packages: JSON.parse(r.packages) as unknown[],
      reasons: JSON.parse(r.reasons) as string[],
      at: toDate(r.created_at),
    }));
  }

  async cacheGet(key: string, at: Date): Promise<string | null> {
    const row = await this.db
      .selectFrom('registry_cache')
      .select('value')
      .where('key', '=', key)
      .where('expires_at', '>', at.toISOString())
      .executeTakeFirst();
    return row?.value ?? null;
  }

  async cachePut(key: string, value: string, expiresAt: Date): Promise<void> {
    await this.db
      .insertInto('registry_cache')
      .values({ key, value, expires_at: expiresAt.toISOString() })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value, expires_at: expiresAt.toISOString() }))
      .execute();
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}

function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function userNotFound(email: string): StoreError {
  return new StoreError('not-found', `user not found: ${normalizeEmail(email)}`);
}

function teamNotFound(name: string): StoreError {
  return new StoreError('not-found', `team not found: ${name}`);
}

function now(): string {
  return new Date().toISOString();
}

function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

function toUser(row: Selectable<UsersTable>): User {
  return { id: row.id, email: row.email, plan: row.plan, createdAt: toDate(row.created_at) };
}

function toTeam(row: Selectable<TeamsTable>): Team {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    hookMode: row.hook_mode,
    createdAt: toDate(row.created_at),
  };
}

interface JoinedTeamColumns {
  team_id: number | null;
  team_name: string | null;
  team_plan: Plan | null;
  team_hook_mode: HookMode | null;
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

function toKey(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    prefix: row.prefix,
    createdAt: toDate(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : toDate(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : toDate(row.revoked_at),
  };
}

type InferRow<Q> = Q extends { executeTakeFirst(): Promise<infer R> } ? NonNullable<R> : never;

/** The SQL of a query compiled with sample values, checked to bind exactly `arity` of them. */
function sqlOf(compiled: CompiledQuery, arity: number): string {
  if (compiled.parameters.length !== arity) {
    throw new Error(`expected ${arity} bound values, the query binds ${compiled.parameters.length}`);
  }
  return compiled.sql;
}
