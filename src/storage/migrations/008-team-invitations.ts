import type { Kysely } from 'kysely';
import { identity } from './001-initial.js';

/**
 * Teams in the dashboard (contract 6): an owner's single-use invitation links, valid 7 days. Only
 * the SHA-256 of a link's token is stored. An invitation goes with its team; who made it or used it
 * is kept while that user exists.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('team_invitations')
    .addColumn('id', 'integer', identity(db))
    .addColumn('token_hash', 'text', (col) => col.notNull().unique())
    .addColumn('team_id', 'integer', (col) => col.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('created_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('expires_at', 'timestamptz', (col) => col.notNull())
    .addColumn('used_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('team_invitations_team_id')
    .on('team_invitations')
    .columns(['team_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('team_invitations').execute();
}
