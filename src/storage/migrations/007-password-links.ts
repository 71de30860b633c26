import type { Kysely } from 'kysely';

/**
 * One-time password links (contract 6: `svc admin create-user` and `reset-password`): the SHA-256 of
 * the link's token, never the token. One live link per user (the primary key), so a new link
 * replaces the one before it; a used link is deleted. A deleted user takes their link with them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('password_links')
    .addColumn('user_id', 'integer', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (col) => col.notNull().unique())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('expires_at', 'timestamptz', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('password_links').execute();
}
