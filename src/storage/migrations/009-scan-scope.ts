import type { Kysely } from 'kysely';

/**
 * What a finished scan covered, for its page to say (issue 33): JSON `{commits, branches, tags,
 * defaultBranch, incomplete}`. Null for scans finished before this column, and until a scan is done.
 * 007 and 008 are accounts' and teams' (built in parallel); migrations run unordered.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('scans').addColumn('scope', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('scans').dropColumn('scope').execute();
}
