import { type Kysely, sql } from 'kysely';
import { identity } from './001-initial.js';

/**
 * Agent hooks: the decisions on install commands (the parsed packages and the
 * reasons, never the command line), and registry answers cached for every instance to share.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('hook_decisions')
    .addColumn('id', 'integer', identity(db))
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('agent', 'text', (col) => col.notNull().check(sql`agent in ('a', 'b')`))
    .addColumn('mode', 'text', (col) => col.notNull().check(sql`mode in ('block', 'warn')`))
    .addColumn('decision', 'text', (col) => col.notNull().check(sql`decision in ('allow', 'deny', 'ask')`))
    .addColumn('packages', 'text', (col) => col.notNull())
    .addColumn('reasons', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('hook_decisions_user_id').on('hook_decisions').column('user_id').execute();

  await db.schema
    .createTable('registry_cache')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('value', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'timestamptz', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('registry_cache').execute();
  await db.schema.dropTable('hook_decisions').execute();
}
