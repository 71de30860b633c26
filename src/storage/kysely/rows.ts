import type { CompiledQuery, Selectable } from 'kysely';
import type { Team, User } from '../accounts.js';
import type { ApiKeyRecord } from '../api-keys.js';
import type { ApiKeysTable, TeamsTable, UsersTable } from '../schema.js';

/** Row <-> record conversions shared by the Kysely repositories. */

export function normalizeEmail(email: string): string {
  return email.trim().normalize('NFC').toLowerCase();
}

export function nowIso(): string {
  return new Date().toISOString();
}

/** PostgreSQL gives a Date, SQLite the ISO string written (see schema.ts). */
export function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

export function toUser(row: Pick<Selectable<UsersTable>, 'id' | 'email' | 'plan' | 'created_at'>): User {
  return { id: row.id, email: row.email, plan: row.plan, createdAt: toDate(row.created_at) };
}

export function toTeam(
  row: Pick<Selectable<TeamsTable>, 'id' | 'name' | 'plan' | 'hook_mode' | 'created_at'>,
): Team {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    hookMode: row.hook_mode,
    createdAt: toDate(row.created_at),
  };
}

export function toKey(row: Selectable<ApiKeysTable>): ApiKeyRecord {
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

export type InferRow<Q> = Q extends { executeTakeFirst(): Promise<infer R> } ? NonNullable<R> : never;

/**
 * The SQL of a query compiled with sample values, checked to bind exactly `arity` of them. The hot
 * queries are compiled once: building a query through Kysely each time cost a tenth of an
 * authenticated request (npm run bench:http). Only the bound values change.
 */
export function sqlOf(compiled: CompiledQuery, arity: number): string {
  if (compiled.parameters.length !== arity) {
    throw new Error(`expected ${arity} bound values, the query binds ${compiled.parameters.length}`);
  }
  return compiled.sql;
}

export interface JoinedTeamColumns {
  team_id: number | null;
  team_name: string | null;
  team_plan: Team['plan'] | null;
  team_hook_mode: Team['hookMode'] | null;
  team_created_at: Date | string | null;
}

/** The team of a left join (null when the user is in none). */
export function joinedTeam(row: JoinedTeamColumns): Team | null {
  const { team_id: id, team_name: name, team_plan: plan, team_hook_mode: hookMode } = row;
  // A left join types each column nullable on its own; they are all set or all null.
  if (id === null || name === null || plan === null || hookMode === null || row.team_created_at === null) {
    return null;
  }
  return { id, name, plan, hookMode, createdAt: toDate(row.team_created_at) };
}

/**
 * The user and team columns of an owner lookup (a key's, a session's: every authenticated request),
 * for a query that joins `users as u` and left-joins `teams as t`.
 */
export const OWNER_COLUMNS = [
  'u.email',
  'u.plan as user_plan',
  'u.created_at as user_created_at',
  't.id as team_id',
  't.name as team_name',
  't.plan as team_plan',
  't.hook_mode as team_hook_mode',
  't.created_at as team_created_at',
] as const;

/** The user and team of a row selected with OWNER_COLUMNS (and the row's `user_id`). */
export function ownerOf(
  row: JoinedTeamColumns & {
    user_id: number;
    email: string;
    user_plan: User['plan'];
    user_created_at: Date | string;
  },
): { user: User; team: Team | null } {
  const user = toUser({
    id: row.user_id,
    email: row.email,
    plan: row.user_plan,
    created_at: row.user_created_at,
  });
  return { user, team: joinedTeam(row) };
}
