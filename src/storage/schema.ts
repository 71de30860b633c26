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
  /** argon2id (PHC string); null for users who never set a password. */
  password_hash: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface TeamsTable {
  id: Generated<number>;
  name: string;
  plan: 'free' | 'paid';
  hook_mode: 'block' | 'warn';
  created_at: Timestamp;
  hook_mode_set_by: ColumnType<number | null, number | null | undefined, number | null>;
  hook_mode_set_at: NullableTimestamp;
}

export interface TeamMembersTable {
  /** The primary key: a user is in at most one team. */
  user_id: number;
  team_id: number;
  created_at: Timestamp;
  role: ColumnType<'owner' | 'member', 'owner' | 'member' | undefined, 'owner' | 'member'>;
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

export interface ScansTable {
  /** Random (UUID): ids appear in URLs, and a guessable one would tell how many scans exist. */
  id: string;
  /** Null for the GitHub application's scans, which belong to an installation, not a user. */
  user_id: number | null;
  team_id: number | null;
  url: string;
  status: 'queued' | 'running' | 'done' | 'failed' | 'canceled';
  progress_done: Generated<number>;
  progress_total: Generated<number>;
  error: string | null;
  /** JSON: the JSON report's summary. */
  summary: string | null;
  /** JSON: the JSON report's findings (masked values and fingerprints, never a secret). */
  findings: string | null;
  /** JSON: what a finished scan covered (ScanScope); null before it is done. */
  scope: string | null;
  created_at: Timestamp;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
  /** How many times a worker took the scan up (a killed worker's scan runs again). */
  attempt: Generated<number>;
  lease_owner: string | null;
  lease_until: NullableTimestamp;
  /** JSON: what a GitHub application scan is of (services/app-a); null for dashboard scans. */
  app_job: string | null;
  /** The webhook delivery that asked for the scan: unique, so a redelivery is not scanned twice. */
  delivery_id: string | null;
  /** The check run the scan reports to, once created. */
  check_run_id: string | null;
}

export interface AppRepositoriesTable {
  /** The full name (`owner/name`), lower case. */
  repository: string;
  installation_id: number | string;
  added_at: Timestamp;
}

export interface IdentitiesTable {
  /** e.g. `codehost-a`. */
  provider: string;
  /** The provider's stable user id (never the login, which can be renamed). */
  subject: string;
  user_id: number;
  created_at: Timestamp;
}

export interface SessionsTable {
  /** SHA-256 (hex) of the session id; the id itself is only ever in the cookie. */
  id_hash: string;
  user_id: number;
  created_at: Timestamp;
  last_seen_at: Timestamp;
}

export interface OAuthStatesTable {
  /** SHA-256 (hex) of the `state` sent to the provider. */
  state_hash: string;
  /** The PKCE code verifier, needed in clear at the token exchange; lives at most 10 minutes. */
  verifier: string;
  created_at: Timestamp;
  /** The signed-in user who started the flow to link GitHub to their account; null for a sign-in. */
  user_id: number | null;
}

export interface TeamInvitationsTable {
  id: Generated<number>;
  /** SHA-256 (hex) of the link's token; the token itself is only ever in the link. */
  token_hash: string;
  team_id: number;
  created_by: number | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_by: ColumnType<number | null, number | null | undefined, number | null>;
  used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface PasswordLinksTable {
  /** One live link per user: a new one replaces it. */
  user_id: number;
  /** SHA-256 (hex) of the link's token; the token itself is only ever in the link. */
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface Database {
  scans: ScansTable;
  app_repositories: AppRepositoriesTable;
  identities: IdentitiesTable;
  sessions: SessionsTable;
  oauth_states: OAuthStatesTable;
  password_links: PasswordLinksTable;
  hook_decisions: HookDecisionsTable;
  registry_cache: RegistryCacheTable;
  users: UsersTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  team_invitations: TeamInvitationsTable;
  api_keys: ApiKeysTable;
  ci_run_usage: CiRunUsageTable;
}
