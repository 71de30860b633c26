import type { Kysely } from 'kysely';

/**
 * "Sign in with GitHub" started by a signed-in user links the GitHub account to theirs
 * (contract 6: a matching email alone never links). The state row remembers whose session started
 * the flow; null for a plain sign-in. A user deleted meanwhile takes their flows with them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('oauth_states')
    .addColumn('user_id', 'integer', (col) => col.references('users.id').onDelete('cascade'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('oauth_states').dropColumn('user_id').execute();
}
