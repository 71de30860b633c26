import { type Kysely, PostgresAdapter, sql, type Transaction } from 'kysely';
import type { Database } from '../schema.js';

/**
 * Runs `work` in a transaction that writes. On SQLite it begins IMMEDIATE, taking the write lock
 * first: a deferred transaction that reads and then writes fails at once with SQLITE_BUSY when
 * another connection (another process on the same file) wrote in between, whatever busy_timeout
 * says; IMMEDIATE waits for the lock instead. On PostgreSQL it is Kysely's own transaction, and
 * `work` locks the rows it decides on (SELECT ... FOR UPDATE).
 */
export async function inWriteTransaction<T>(
  db: Kysely<Database>,
  work: (trx: Kysely<Database> | Transaction<Database>) => Promise<T>,
): Promise<T> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return db.transaction().execute(work);
  return db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      const result = await work(connection);
      await sql`commit`.execute(connection);
      return result;
    } catch (error) {
      await sql`rollback`.execute(connection);
      throw error;
    }
  });
}
