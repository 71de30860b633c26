import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * The GitHub application: the repositories it is installed on, and its scans. Its scans are jobs
 * in the same queue as dashboard scans (one worker, one lease, one fence), so a scan row may now
 * belong to no user; `app_job` holds what the scan is of (installation, repository, commits),
 * `delivery_id` the webhook delivery that asked for it (unique: a delivery seen before is not scanned
 * twice), `check_run_id` the check run it reports to. SQLite cannot drop a NOT NULL constraint, so
 * there the table is rebuilt.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table scans alter column user_id drop not null`.execute(db);
    await db.schema
      .alterTable('scans')
      .addColumn('app_job', 'text')
      .addColumn('delivery_id', 'text')
      .addColumn('check_run_id', 'text')
      .execute();
  } else {
    await rebuildSqliteScans(db);
  }
  await db.schema.createIndex('scans_delivery_id').unique().on('scans').column('delivery_id').execute();

  await db.schema
    .createTable('app_repositories')
    // The repository's full name, lower case (the platform treats names case-insensitively).
    .addColumn('repository', 'text', (col) => col.primaryKey())
    .addColumn('installation_id', 'bigint', (col) => col.notNull())
    .addColumn('added_at', 'timestamptz', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('app_repositories_installation')
    .on('app_repositories')
    .column('installation_id')
    .execute();
}

async function rebuildSqliteScans(db: Kysely<unknown>): Promise<void> {
  await sql`create table scans_new (
    id text primary key,
    user_id integer references users(id) on delete cascade,
    team_id integer references teams(id) on delete set null,
    url text not null,
    status text not null check (status in ('queued', 'running', 'done', 'failed', 'canceled')),
    progress_done integer not null default 0,
    progress_total integer not null default 0,
    error text,
    summary text,
    findings text,
    created_at timestamptz not null,
    started_at timestamptz,
    finished_at timestamptz,
    attempt integer not null default 0,
    lease_owner text,
    lease_until timestamptz,
    app_job text,
    delivery_id text,
    check_run_id text
  )`.execute(db);
  await sql`insert into scans_new (id, user_id, team_id, url, status, progress_done, progress_total, error,
    summary, findings, created_at, started_at, finished_at, attempt, lease_owner, lease_until)
    select id, user_id, team_id, url, status, progress_done, progress_total, error, summary, findings,
    created_at, started_at, finished_at, attempt, lease_owner, lease_until from scans`.execute(db);
  await sql`drop table scans`.execute(db);
  await sql`alter table scans_new rename to scans`.execute(db);
  await db.schema.createIndex('scans_user_id').on('scans').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('scans_team_id').on('scans').columns(['team_id', 'created_at']).execute();
  await db.schema.createIndex('scans_status').on('scans').columns(['status', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('app_repositories').execute();
  await db.schema.dropIndex('scans_delivery_id').execute();
}
