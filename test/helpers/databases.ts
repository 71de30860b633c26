import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { openStorage, type Storage } from '../../src/storage/index.js';
import { isCi } from './ci.js';

/** Every storage-backed suite runs once per entry (`for (const dialect of DIALECTS)`). */
export const DIALECTS = ['sqlite', 'postgres'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** The local test database (trust auth); SVC_TEST_POSTGRES_URL points elsewhere. */
export const POSTGRES_URL = process.env.SVC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let probe: Promise<boolean> | undefined;

/** Probed once per test file: whether POSTGRES_URL accepts a connection and a query. */
export function postgresReachable(): Promise<boolean> {
  probe ??= (async () => {
    const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
    // A refused connection also emits 'error'; without a listener that would fail the run.
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return probe;
}

/**
 * Whether to skip the `dialect` block of a suite: only PostgreSQL, only when it is not reachable,
 * and never in CI, which always has it; there the block runs and fails on opening, saying why.
 */
export async function skipDialect(dialect: Dialect, suite = 'storage tests'): Promise<boolean> {
  if (dialect === 'sqlite' || (await postgresReachable()) || isCi()) return false;
  console.warn(`PostgreSQL not reachable at ${POSTGRES_URL}: ${suite} skipped for it`);
  return true;
}

export interface TestDatabase {
  dialect: Dialect;
  /** The database URL, and the schema on PostgreSQL: what a child process needs to open it too. */
  url: string;
  schema: string | undefined;
  /**
   * What a `svc` process is given as SVC_DATABASE_URL to open this same database: on PostgreSQL the
   * URL with the schema as its search path (the public schema outlives every run).
   */
  processUrl: string;
  storage: Storage;
  /** Another Storage on the same database (its own connection or pool), closed by cleanup. */
  open(): Promise<Storage>;
  /** Closes every Storage opened here and deletes the temp file or drops the schema. */
  cleanup(): Promise<void>;
}

/** A fresh, migrated database: a temp SQLite file, or a new schema in POSTGRES_URL. */
export async function openTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  const opened: Storage[] = [];
  const track = async (opening: Promise<Storage>) => {
    const storage = await opening;
    opened.push(storage);
    return storage;
  };
  const closeAll = () => Promise.allSettled(opened.map((storage) => storage.close()));

  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
    // A folder that does not exist yet: opening must create it.
    const url = `sqlite:${join(dir, 'data', 'svc.db')}`;
    const open = () => track(openStorage(url));
    const cleanup = async () => {
      await closeAll();
      rmSync(dir, { recursive: true, force: true });
    };
    try {
      return { dialect, url, schema: undefined, processUrl: url, storage: await open(), open, cleanup };
    } catch (error) {
      await cleanup();
      throw error;
    }
  }

  if (!(await postgresReachable())) {
    throw new Error(`PostgreSQL not reachable at ${POSTGRES_URL} (CI is set, which requires it)`);
  }
  const schema = `svc_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const open = () => track(openStorage(POSTGRES_URL, { schema }));
  const cleanup = async () => {
    await closeAll();
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await client.query(`drop schema if exists "${schema}" cascade`);
    } finally {
      await client.end();
    }
  };
  try {
    const withSchema = new URL(POSTGRES_URL);
    withSchema.searchParams.set('options', `-c search_path=${schema}`);
    const processUrl = withSchema.toString();
    return { dialect, url: POSTGRES_URL, schema, processUrl, storage: await open(), open, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** The local Redis; SVC_TEST_REDIS_URL points elsewhere. */
export const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let redisProbe: Promise<boolean> | undefined;

/**
 * Whether the Redis suites run: yes when REDIS_URL answers; when it does not, they are skipped with
 * a line saying so, except in CI, which always has Redis and fails instead.
 */
export function redisAvailable(suite: string): Promise<boolean> {
  redisProbe ??= (async () => {
    const probe = new Redis(REDIS_URL, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
    });
    probe.on('error', () => {});
    try {
      await probe.connect();
      return (await probe.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      probe.disconnect();
    }
  })();
  return redisProbe.then((up) => {
    if (up) return true;
    if (isCi()) throw new Error(`Redis not reachable at ${REDIS_URL} (CI=${process.env.CI} requires it)`);
    console.warn(`Redis not reachable at ${REDIS_URL}: ${suite} skipped`);
    return false;
  });
}

/** Whether a suite of several `svc` processes on PostgreSQL and Redis runs (both must answer; CI has both). */
export async function scaleOutAvailable(suite: string): Promise<boolean> {
  return (
    (await postgresReachable()) && !(await skipDialect('postgres', suite)) && (await redisAvailable(suite))
  );
}
