import { type Kysely, sql } from 'kysely';

/**
 * Dashboard scans of public repositories: each row is both the scan's record and its job in the
 * embedded queue (status, attempt, and the lease a worker holds while it runs the scan). Findings
 * and summary are the JSON report's (masked values and fingerprints only, never a secret).
 * 003 is taken by sign-in, which was numbered first and may land later: migrations run unordered
 * (database.ts), so either order of arrival works.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scans')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('team_id', 'integer', (col) => col.references('teams.id').onDelete('set null'))
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) =>
      col.notNull().check(sql`status in ('queued', 'running', 'done', 'failed', 'canceled')`),
    )
    .addColumn('progress_done', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('progress_total', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('summary', 'text')
    .addColumn('findings', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .addColumn('attempt', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'timestamptz')
    .execute();
  await db.schema.createIndex('scans_user_id').on('scans').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('scans_team_id').on('scans').columns(['team_id', 'created_at']).execute();
  // The worker's poll: queued scans oldest first, and running ones whose lease may have run out.
  await db.schema.createIndex('scans_status').on('scans').columns(['status', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('scans').execute();
}
