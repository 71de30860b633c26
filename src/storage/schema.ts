import type { ColumnType, Generated } from 'kysely';

/**
 * Timestamps are written as ISO-8601 UTC strings on both databases: SQLite keeps them as text that
 * sorts in time order, PostgreSQL parses them into `timestamptz`. Reads give a `Date` (PostgreSQL)
 * or the string back (SQLite); the store converts both.
 */
type Timestamp = ColumnType<Date | string, string, string>;
type NullableTimestamp = ColumnType<Date | string | null, string | null | undefined, string | null>;

export interface UsersTable {
  id: Generated<number>;
  /** Always lowercased, so the unique index makes email case-insensitive on both databases. */
  email: string;
  plan: 'free' | 'paid';
  created_at: Timestamp;
}

export interface TeamsTable {
  id: Generated<number>;
  name: string;
  plan: 'free' | 'paid';
  hook_mode: 'block' | 'warn';
  created_at: Timestamp;
}

export interface TeamMembersTable {
  /** The primary key: a user is in at most one team. */
  user_id: number;
  team_id: number;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  prefix: string;
  hash: string;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface CiRunUsageTable {
  account_kind: 'user' | 'team';
  account_id: number;
  /** `YYYY-MM`, UTC. */
  month: string;
  runs: number;
}

export interface HookDecisionsTable {
  id: Generated<number>;
  user_id: number;
  agent: 'a' | 'b';
  mode: 'block' | 'warn';
  decision: 'allow' | 'deny' | 'ask';
  /** JSON: the parsed packages. */
  packages: string;
  /** JSON: the reasons given. */
  reasons: string;
  created_at: Timestamp;
}

export interface RegistryCacheTable {
  key: string;
  value: string;
  expires_at: Timestamp;
}

export interface Database {
  hook_decisions: HookDecisionsTable;
  registry_cache: RegistryCacheTable;
  users: UsersTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  api_keys: ApiKeysTable;
  ci_run_usage: CiRunUsageTable;
}
