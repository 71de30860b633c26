import type SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, type Dialect, Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { KyselyAccounts } from './kysely/accounts.js';
import { KyselyApiKeys } from './kysely/api-keys.js';
import { KyselyAppRepositories } from './kysely/app-repositories.js';
import { KyselyCredentials } from './kysely/credentials.js';
import { KyselyHookDecisions } from './kysely/hook-decisions.js';
import { KyselyIdentities } from './kysely/identities.js';
import { KyselyInvitations } from './kysely/invitations.js';
import { KyselyOAuthStates } from './kysely/oauth-states.js';
import { KyselyPasswordLinks } from './kysely/password-links.js';
import { KyselyRegistryCache } from './kysely/registry-cache.js';
import { KyselyScans } from './kysely/scans.js';
import { KyselySessions } from './kysely/sessions.js';
import { KyselyTeams } from './kysely/teams.js';
import { KyselyUsage } from './kysely/usage.js';
import { migrationProvider } from './migrations/index.js';
import type { Database } from './schema.js';
import { openSqliteFile } from './sqlite-file.js';
import type { Storage } from './storage.js';
import { reportingUnavailability, unavailabilityReason } from './unavailable.js';

export interface OpenStorageOptions {
  /**
   * PostgreSQL only: the schema that holds every table, created if missing. Tests give each run a
   * fresh one so they can share one database and drop their data with one statement.
   */
  schema?: string;
  /**
   * PostgreSQL only: told when a pooled connection breaks outside a query (a restart, a network cut,
   * pg_terminate_backend). The pool drops that connection and opens a new one on the next query;
   * this is for the log. Gets a short reason (an error code), never the connection string.
   */
  onConnectionError?: (reason: string) => void;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Opens the database named by `databaseUrl` (`sqlite:PATH`, `sqlite::memory:`, `postgres://...`)
 * and brings its schema to the latest migration, so a first start needs no manual setup.
 */
export async function openStorage(databaseUrl: string, options: OpenStorageOptions = {}): Promise<Storage> {
  const target = parseDatabaseUrl(databaseUrl);
  if (options.schema !== undefined && target.kind !== 'postgres') {
    throw new Error('the schema option applies to PostgreSQL only');
  }
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new Error(`invalid schema name: ${options.schema}`);
  }
  const db = new Kysely<Database>({
    dialect: reportingUnavailability(
      target.kind === 'sqlite'
        ? sqliteDialect(target.path)
        : postgresDialect(target.url, options.schema, options.onConnectionError ?? (() => {})),
    ),
  });
  try {
    if (target.kind === 'sqlite') await migrateSqlite(db);
    else await migratePostgres(db, options.schema);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return {
    accounts: new KyselyAccounts(db),
    apiKeys: new KyselyApiKeys(db),
    usage: new KyselyUsage(db),
    hookDecisions: new KyselyHookDecisions(db),
    registryCache: new KyselyRegistryCache(db),
    scans: new KyselyScans(db),
    appRepositories: new KyselyAppRepositories(db),
    credentials: new KyselyCredentials(db),
    identities: new KyselyIdentities(db),
    sessions: new KyselySessions(db),
    oauthStates: new KyselyOAuthStates(db),
    teams: new KyselyTeams(db),
    invitations: new KyselyInvitations(db),
    passwordLinks: new KyselyPasswordLinks(db),
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

type Target = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

function parseDatabaseUrl(url: string): Target {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path === '') throw new Error('database URL needs a path after "sqlite:" (or sqlite::memory:)');
    return { kind: 'sqlite', path };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return { kind: 'postgres', url };
  // Only the scheme is echoed: the rest of a URL may hold a password.
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(url)?.[0] ?? '(none)';
  throw new Error(`unsupported database URL scheme ${scheme} (expected sqlite:PATH or postgres://...)`);
}

function sqliteDialect(path: string): Dialect {
  return new SqliteDialect({ database: withStatementCache(openSqliteFile(path)) });
}

/** Statements kept at most; the service issues a few dozen distinct SQL texts, so this never fills. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely prepares every query anew, and preparing was the single largest cost of an authenticated
 * request (npm run bench:http). The SQL text of a query is the same each time (values are bound
 * parameters), so its prepared statement can be reused.
 */
function withStatementCache(database: SqliteDatabase.Database) {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => database.close(),
    prepare(sqlText: string) {
      let statement = statements.get(sqlText);
      if (statement === undefined) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statement = database.prepare(sqlText);
        statements.set(sqlText, statement);
      }
      return statement;
    },
  };
}

/**
 * How long a request waits for a new connection: when the database is unreachable, requests fail
 * with "database unavailable" within this time instead of queueing (the hooks' budget is 4 s).
 */
const CONNECT_TIMEOUT_MS = 3000;

function postgresDialect(
  connectionString: string,
  schema: string | undefined,
  onConnectionError: (reason: string) => void,
): Dialect {
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Finds a silently dead peer (a failover, a cut network) instead of waiting on it forever.
    keepAlive: true,
  });
  const report = (error: Error) => onConnectionError(unavailabilityReason(error) ?? error.name);
  // A connection that breaks while idle in the pool emits 'error' on the pool; one that breaks
  // while checked out (between a transaction's queries, say) emits it on its client, where pg-pool
  // keeps no listener. Node ends the process on an 'error' event nobody listens to, so both get one;
  // the pool discards the broken client when it is released.
  pool.on('error', report);
  pool.on('connect', (client) => client.on('error', report));
  return new PostgresDialect({
    pool,
    onCreateConnection: schema
      ? (connection) =>
          connection.executeQuery(CompiledQuery.raw(`set search_path to "${schema}"`)).then(() => {})
      : undefined,
  });
}

async function migrateSqlite(db: Kysely<Database>): Promise<void> {
  // Kysely's SQLite migration lock is a no-op (it assumes one process), so two processes starting on
  // a new file could both migrate. BEGIN IMMEDIATE takes the write lock up front, and the second
  // waits (busy_timeout) and then finds nothing left to do.
  await sql`begin immediate`.execute(db);
  try {
    await migrateToLatest(
      new Migrator({
        db,
        provider: migrationProvider,
        disableTransactions: true,
        allowUnorderedMigrations: true,
      }),
    );
    await sql`commit`.execute(db);
  } catch (error) {
    await sql`rollback`.execute(db);
    throw error;
  }
}

async function migratePostgres(db: Kysely<Database>, schema: string | undefined): Promise<void> {
  if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  // Kysely finds its migration table in any schema unless told which one, so a copy in another
  // schema of the same database would be mistaken for ours.
  const current = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const migrationTableSchema = schema ?? current.rows[0]?.schema ?? 'public';
  await migrateToLatest(
    new Migrator({ db, provider: migrationProvider, migrationTableSchema, allowUnorderedMigrations: true }),
  );
}

/**
 * Migrators are built with allowUnorderedMigrations: migrations are numbered by issue and may land
 * out of order (004-scans before 003), and a database that ran 004 must still run 003 when it comes.
 */
async function migrateToLatest(migrator: Migrator): Promise<void> {
  const { error, results } = await migrator.migrateToLatest();
  if (error === undefined) return;
  const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? '(setup)';
  const reason = error instanceof Error ? error.message : String(error);
  throw new Error(`database migration ${failed} failed: ${reason}`, { cause: error });
}
