import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';

/** How long one process waits out the others' locks, both in queries and while switching to WAL. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens a SQLite file (creating its folder) with the settings the service runs on: WAL, NORMAL
 * sync, foreign keys, and a busy timeout so processes sharing the file wait for each other.
 */
export function openSqliteFile(path: string): SqliteDatabase.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new SqliteDatabase(path);
  // busy_timeout first, so switching to WAL waits out another process where SQLite lets it wait.
  database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Several processes opening one new file at once (a server and an `svc admin` command, scaled
  // instances) race to switch it to WAL. Where waiting could deadlock, SQLite answers SQLITE_BUSY at
  // once without calling the busy handler (seen in about one start in eight with six processes),
  // so the switch is retried here until the same timeout.
  retryWhileBusy(() => database.pragma('journal_mode = WAL'), BUSY_TIMEOUT_MS);
  // NORMAL sync is durable across crashes of the process in WAL mode (only an OS crash can lose
  // the last commits).
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  return database;
}

/**
 * Runs `attempt` until it does not throw SQLITE_BUSY, pausing a few random milliseconds between
 * tries so racing processes fall out of step; after `timeoutMs` the last error is thrown. The pause
 * blocks the thread: this runs once, while opening, before the service takes requests.
 */
export function retryWhileBusy<T>(attempt: () => T, timeoutMs: number): T {
  const deadline = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      return attempt();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, 5 + Math.random() * 20);
    }
  }
}

function isBusy(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'SQLITE_BUSY';
}
