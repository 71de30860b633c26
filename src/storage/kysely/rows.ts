import type { CompiledQuery, Selectable } from 'kysely';
import type { Team, User } from '../accounts.js';
import type { ApiKeyRecord } from '../api-keys.js';
import type { ApiKeysTable, TeamsTable, UsersTable } from '../schema.js';

/** Row <-> record conversions shared by the Kysely repositories. */

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function nowIso(): string {
  return new Date().toISOString();
}

/** PostgreSQL gives a Date, SQLite the ISO string written (see schema.ts). */
export function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

export function toUser(row: Selectable<UsersTable>): User {
  return { id: row.id, email: row.email, plan: row.plan, createdAt: toDate(row.created_at) };
}

export function toTeam(row: Selectable<TeamsTable>): Team {
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
