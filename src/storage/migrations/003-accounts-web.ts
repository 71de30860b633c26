import { type Kysely, sql } from 'kysely';

/**
 * Sign-in and the dashboard: a password hash on users (null for users who sign in only through
 * GitHub or were made by an operator), external identities, server-side sessions, the OAuth
 * states in flight, a team member's role, and who last set a team's hook mode.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('password_hash', 'text').execute();

  // Existing members become plain members; an operator names owners (svc admin add-member --owner).
  await db.schema
    .alterTable('team_members')
    .addColumn('role', 'text', (col) =>
      col.notNull().defaultTo('member').check(sql`role in ('owner', 'member')`),
    )
    .execute();
  await db.schema
    .alterTable('teams')
    .addColumn('hook_mode_set_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
    .execute();
  await db.schema.alterTable('teams').addColumn('hook_mode_set_at', 'timestamptz').execute();

  await db.schema
    .createTable('identities')
    .addColumn('provider', 'text', (col) => col.notNull())
    .addColumn('subject', 'text', (col) => col.notNull())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addPrimaryKeyConstraint('identities_pk', ['provider', 'subject'])
    .execute();

  await db.schema
    .createTable('sessions')
    // SHA-256 of the cookie's value: a copy of the table opens no session.
    .addColumn('id_hash', 'text', (col) => col.primaryKey())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .addColumn('last_seen_at', 'timestamptz', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('oauth_states')
    .addColumn('state_hash', 'text', (col) => col.primaryKey())
    .addColumn('verifier', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['oauth_states', 'sessions', 'identities']) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.alterTable('teams').dropColumn('hook_mode_set_at').execute();
  await db.schema.alterTable('teams').dropColumn('hook_mode_set_by').execute();
  await db.schema.alterTable('team_members').dropColumn('role').execute();
  await db.schema.alterTable('users').dropColumn('password_hash').execute();
}
