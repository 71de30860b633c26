import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * Kysely's `autoIncrement()` has no PostgreSQL spelling, so identity keys are written per dialect.
 * Both forms never reuse an id, which matters because `ci_run_usage.account_id` has no foreign key.
 */
export function identity(db: Kysely<unknown>) {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return (col: ColumnDefinitionBuilder) =>
    postgres ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
}

const plan = (col: ColumnDefinitionBuilder) =>
  col.notNull().defaultTo('free').check(sql`plan in ('free', 'paid')`);

export async function up(db: Kysely<unknown>): Promise<void> {
  const id = identity(db);

  await db.schema
    .createTable('users')
    .addColumn('id', 'integer', id)
    .addColumn('email', 'text', (col) => col.notNull().unique())
    .addColumn('plan', 'text', plan)
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('teams')
    .addColumn('id', 'integer', id)
    .addColumn('name', 'text', (col) => col.notNull().unique())
    .addColumn('plan', 'text', plan)
    .addColumn('hook_mode', 'text', (col) =>
      col.notNull().defaultTo('block').check(sql`hook_mode in ('block', 'warn')`),
    )
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('team_members')
    .addColumn('user_id', 'integer', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('team_id', 'integer', (col) => col.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('team_members_team_id').on('team_members').column('team_id').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'integer', id)
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('prefix', 'text', (col) => col.notNull())
    .addColumn('hash', 'text', (col) => col.notNull().unique())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('api_keys_user_id').on('api_keys').column('user_id').execute();

  await db.schema
    .createTable('ci_run_usage')
    .addColumn('account_kind', 'text', (col) => col.notNull().check(sql`account_kind in ('user', 'team')`))
    .addColumn('account_id', 'integer', (col) => col.notNull())
    .addColumn('month', 'text', (col) => col.notNull())
    .addColumn('runs', 'integer', (col) => col.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('ci_run_usage_pk', ['account_kind', 'account_id', 'month'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['ci_run_usage', 'api_keys', 'team_members', 'teams', 'users']) {
    await db.schema.dropTable(table).execute();
  }
}
