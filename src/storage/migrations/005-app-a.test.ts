import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStorage } from '../database.js';
import { migrationProvider } from './index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('migration 005 (the GitHub application) on a SQLite database that has scans', () => {
  it('rebuilds the scans table without losing a row, and its queue still works', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-migrate-'));
    dirs.push(dir);
    const file = join(dir, 'svc.db');
    // A database as 004 left it, with a user, a finished scan and a queued one.
    const old = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new SqliteDatabase(file) }) });
    const migrated = await new Migrator({
      db: old,
      provider: migrationProvider,
      allowUnorderedMigrations: true,
    }).migrateTo('004-scans');
    expect(migrated.error).toBeUndefined();
    await sql`insert into users (email, plan, created_at) values ('ada@example.test', 'free', '2026-01-01T00:00:00Z')`.execute(
      old,
    );
    await sql`insert into scans (id, user_id, url, status, summary, findings, created_at, attempt)
      values ('done-1', 1, 'https://github.com/o/a', 'done', '{"total":1}', '[{"ruleId":"x"}]', '2026-01-01T00:00:00Z', 1),
             ('queued-1', 1, 'https://github.com/o/b', 'queued', null, null, '2026-01-02T00:00:00Z', 0)`.execute(
      old,
    );
    await old.destroy();

    const storage = await openStorage(`sqlite:${file}`);
    try {
      const viewer = { userId: 1, teamId: null };
      expect(await storage.scans.findScan('done-1', viewer)).toMatchObject({
        status: 'done',
        summary: { total: 1 },
        findings: [{ ruleId: 'x' }],
      });
      expect((await storage.scans.listScans(viewer, 10)).map((s) => s.id)).toEqual(['queued-1', 'done-1']);
      const claimed = await storage.scans.claimNextScan('w', new Date('2026-01-03T00:00:00Z'), 30_000);
      expect(claimed).toMatchObject({ id: 'queued-1', appJob: null, checkRunId: null });
      const app = await storage.scans.createAppScan({
        url: 'https://github.com/o/c',
        appJob: '{}',
        deliveryId: 'd',
        at: new Date(),
      });
      expect(app).toEqual(expect.any(String));
    } finally {
      await storage.close();
    }
  });
});
