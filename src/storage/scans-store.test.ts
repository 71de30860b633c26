import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, openTestDatabase, skipDialect, type TestDatabase } from '../../test/helpers/databases.js';
import type { Storage } from './index.js';

const LEASE_MS = 30_000;
const at = (iso: string) => new Date(iso);

for (const dialect of DIALECTS) {
  describe.skipIf(await skipDialect(dialect))(`scans and their queue on ${dialect}`, () => {
    let db: TestDatabase;
    let storage: Storage;
    let ada: number;
    let bob: number;
    let eve: number;
    let team: number;
    beforeAll(async () => {
      db = await openTestDatabase(dialect);
      storage = db.storage;
      ada = (await storage.accounts.createUser({ email: 'ada@example.test' })).id;
      bob = (await storage.accounts.createUser({ email: 'bob@example.test' })).id;
      eve = (await storage.accounts.createUser({ email: 'eve@example.test' })).id;
      team = (await storage.accounts.createTeam({ name: 'core' })).id;
    });
    afterAll(() => db.cleanup());

    /** A database of the test's own: the queue tests need no other scans in the way. */
    async function withFreshDatabase(
      test: (
        fresh: TestDatabase,
        user: number,
        create: (url: string, iso: string) => Promise<{ id: string }>,
      ) => Promise<void>,
    ) {
      const fresh = await openTestDatabase(dialect);
      try {
        const user = (await fresh.storage.accounts.createUser({ email: 'q@example.test' })).id;
        await test(fresh, user, (url, iso) =>
          fresh.storage.scans.createScan({ userId: user, teamId: null, url, at: at(iso) }),
        );
      } finally {
        await fresh.cleanup();
      }
    }

    it('queues one application scan per delivery, seen by no user, its check run recorded by the holder', async () => {
      await withFreshDatabase(async (fresh, user) => {
        const input = {
          url: 'https://github.com/acme/app',
          appJob: '{"x":1}',
          deliveryId: 'd-1',
          at: at('2026-03-01T10:00:00Z'),
        };
        const id = await fresh.storage.scans.createAppScan(input);
        expect(id).toEqual(expect.any(String));
        expect(await fresh.storage.scans.createAppScan({ ...input, appJob: '{"x":2}' })).toBeNull();
        expect(await fresh.storage.scans.listScans({ userId: user, teamId: null }, 10)).toEqual([]);
        expect(await fresh.storage.scans.findScan(id ?? '', { userId: user, teamId: null })).toBeNull();

        const claimed = await fresh.storage.scans.claimNextScan('w', at('2026-03-01T10:00:01Z'), LEASE_MS);
        expect(claimed).toEqual({ id, url: input.url, attempt: 1, appJob: '{"x":1}', checkRunId: null });
        expect(await fresh.storage.scans.recordCheckRun(id ?? '', 'someone-else', '9')).toBe(false);
        expect(await fresh.storage.scans.recordCheckRun(id ?? '', 'w', '9')).toBe(true);
        await fresh.storage.scans.releaseScan(id ?? '', 'w');
        const again = await fresh.storage.scans.claimNextScan('v', at('2026-03-01T10:00:02Z'), LEASE_MS);
        expect(again).toMatchObject({ id, checkRunId: '9' });
      });
    });

    it('keeps the repositories an installation covers, by case-insensitive name', async () => {
      const repos = storage.appRepositories;
      await repos.addRepositories(5, ['Acme/One', 'acme/two'], at('2026-03-01T10:00:00Z'));
      expect(await repos.installationOf('ACME/one')).toBe(5);
      // Moved to another installation (transferred): the newer one wins.
      await repos.addRepositories(6, ['acme/two'], at('2026-03-01T10:00:00Z'));
      expect(await repos.installationOf('acme/two')).toBe(6);
      await repos.removeRepositories(5, ['acme/two']);
      expect(await repos.installationOf('acme/two')).toBe(6);
      await repos.removeInstallation(5);
      expect(await repos.installationOf('acme/one')).toBeNull();
      expect(await repos.installationOf('acme/two')).toBe(6);
    });

    it('shows a scan to its user and their team, and to nobody else', async () => {
      const scan = await storage.scans.createScan({
        userId: ada,
        teamId: team,
        url: 'https://github.com/o/visible',
        at: at('2026-03-01T10:00:00Z'),
      });
      expect(scan).toMatchObject({ status: 'queued', progress: { done: 0, total: 0 }, attempt: 0 });
      expect(scan.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await storage.scans.findScan(scan.id, { userId: ada, teamId: null })).toMatchObject({
        url: 'https://github.com/o/visible',
        createdAt: at('2026-03-01T10:00:00Z'),
      });
      expect(await storage.scans.findScan(scan.id, { userId: bob, teamId: team })).not.toBeNull();
      expect(await storage.scans.findScan(scan.id, { userId: eve, teamId: null })).toBeNull();
      expect(await storage.scans.findScan(scan.id, { userId: eve, teamId: team + 1 })).toBeNull();
      expect(await storage.scans.findScan('not-an-id', { userId: ada, teamId: team })).toBeNull();
      const listed = await storage.scans.listScans({ userId: bob, teamId: team }, 10);
      expect(listed.map((s) => s.id)).toContain(scan.id);
      expect(await storage.scans.listScans({ userId: eve, teamId: null }, 10)).toEqual([]);
    });

    it('hands each queued scan to one worker, oldest first, and records its run', async () => {
      await withFreshDatabase(async (fresh, user, create) => {
        const first = await create('u1', '2026-03-01T10:00:00Z');
        const second = await create('u2', '2026-03-01T10:00:01Z');
        const now = at('2026-03-01T10:01:00Z');
        const a = await fresh.storage.scans.claimNextScan('worker-a', now, LEASE_MS);
        const b = await fresh.storage.scans.claimNextScan('worker-b', now, LEASE_MS);
        expect(a).toEqual({ id: first.id, url: 'u1', attempt: 1, appJob: null, checkRunId: null });
        expect(b).toEqual({ id: second.id, url: 'u2', attempt: 1, appJob: null, checkRunId: null });
        expect(await fresh.storage.scans.claimNextScan('worker-c', now, LEASE_MS)).toBeNull();

        // Only the holder writes.
        expect(await fresh.storage.scans.recordScanProgress(first.id, 'worker-b', 1, 2)).toBe(false);
        expect(await fresh.storage.scans.recordScanProgress(first.id, 'worker-a', 1, 2)).toBe(true);
        const viewer = { userId: user, teamId: null };
        expect((await fresh.storage.scans.findScan(first.id, viewer))?.progress).toEqual({
          done: 1,
          total: 2,
        });
        const findings = [{ fingerprint: 'generic-secret:0123456789ab:a.env:1', maskedValue: 'abcd****' }];
        const summary = { total: 1, failing: 1 };
        const finishedAt = at('2026-03-01T10:02:00Z');
        const scope = { commits: 2, branches: 1, tags: 0, defaultBranch: 'main', incomplete: false };
        expect(
          await fresh.storage.scans.finishScan(first.id, 'worker-b', { summary, findings }, finishedAt),
        ).toBe(false);
        expect(
          await fresh.storage.scans.finishScan(
            first.id,
            'worker-a',
            { summary, findings, scope },
            finishedAt,
          ),
        ).toBe(true);
        expect(await fresh.storage.scans.findScan(first.id, viewer)).toMatchObject({
          status: 'done',
          summary,
          findings,
          scope,
          startedAt: now,
          finishedAt,
        });
        // Done is final: the old holder can write nothing more.
        expect(await fresh.storage.scans.failScan(first.id, 'worker-a', 'late', finishedAt)).toBe(false);
        expect(
          await fresh.storage.scans.failScan(
            second.id,
            'worker-b',
            'repository not found or not public',
            finishedAt,
          ),
        ).toBe(true);
        expect(await fresh.storage.scans.findScan(second.id, viewer)).toMatchObject({
          status: 'failed',
          error: 'repository not found or not public',
          findings: null,
        });
        const list = await fresh.storage.scans.listScans(viewer, 10);
        expect(list.map((s) => s.url)).toEqual(['u2', 'u1']);
        expect(list[1]).toMatchObject({ summary, findings: null });
      });
    });

    it("takes work fairly per user: B's one scan, queued after A's five, runs before A's later ones", async () => {
      await withFreshDatabase(async (fresh, userA) => {
        const userB = (await fresh.storage.accounts.createUser({ email: 'b@example.test' })).id;
        const scans = fresh.storage.scans;
        const create = (userId: number, url: string, second: number) =>
          scans.createScan({ userId, teamId: null, url, at: at(`2026-03-01T10:00:0${second}Z`) });
        for (let i = 1; i <= 5; i++) await create(userA, `a${i}`, i - 1);
        const b1 = await create(userB, 'b1', 5);
        expect(await scans.ownQueuePosition(b1.id)).toBe(0);

        // One worker, one scan at a time, each finished before the next claim.
        const order: string[] = [];
        for (let minute = 1; ; minute++) {
          const now = at(`2026-03-01T10:${String(minute).padStart(2, '0')}:00Z`);
          const claimed = await scans.claimNextScan('worker', now, LEASE_MS);
          if (claimed === null) break;
          order.push(claimed.url);
          if (minute === 1) {
            // A's later scans wait in A's own line.
            const ids = (await scans.listScans({ userId: userA, teamId: null }, 10)).map((s) => s.id);
            expect(await Promise.all(ids.map((id) => scans.ownQueuePosition(id)))).toEqual([4, 3, 2, 1, 0]);
          }
          expect(await scans.finishScan(claimed.id, 'worker', { summary: {}, findings: [] }, now)).toBe(true);
        }
        expect(order).toEqual(['a1', 'b1', 'a2', 'a3', 'a4', 'a5']);

        // With a worker per instance: while A's scan runs, the next claim goes to B, not to A's next.
        const a6 = await create(userA, 'a6', 6);
        const a7 = await create(userA, 'a7', 7);
        const now = at('2026-03-01T11:00:00Z');
        expect((await scans.claimNextScan('w1', now, LEASE_MS))?.id).toBe(a6.id);
        const b2 = await create(userB, 'b2', 8);
        expect((await scans.claimNextScan('w2', now, LEASE_MS))?.id).toBe(b2.id);
        expect((await scans.claimNextScan('w3', now, LEASE_MS))?.id).toBe(a7.id);
      });
    });

    it('takes a scan back from a worker whose lease ran out, and the old worker can no longer write', async () => {
      await withFreshDatabase(async (fresh, user, create) => {
        const scan = await create('u', '2026-03-01T10:00:00Z');
        const t0 = at('2026-03-01T10:01:00Z');
        expect(await fresh.storage.scans.claimNextScan('dead', t0, LEASE_MS)).toMatchObject({ attempt: 1 });
        // Renewed, the lease holds past its first end.
        expect(
          await fresh.storage.scans.renewScanLease(scan.id, 'dead', at('2026-03-01T10:01:20Z'), LEASE_MS),
        ).toBe(true);
        expect(
          await fresh.storage.scans.claimNextScan('other', at('2026-03-01T10:01:40Z'), LEASE_MS),
        ).toBeNull();
        // Then the worker dies: after the lease, another takes the scan, as attempt 2.
        const later = at('2026-03-01T10:02:00Z');
        expect(await fresh.storage.scans.claimNextScan('other', later, LEASE_MS)).toEqual({
          id: scan.id,
          url: 'u',
          attempt: 2,
          appJob: null,
          checkRunId: null,
        });
        expect(await fresh.storage.scans.renewScanLease(scan.id, 'dead', later, LEASE_MS)).toBe(false);
        expect(await fresh.storage.scans.recordScanProgress(scan.id, 'dead', 5, 5)).toBe(false);
        // A stopping worker puts its scan back without using an attempt.
        expect(await fresh.storage.scans.releaseScan(scan.id, 'other')).toBe(true);
        expect(await fresh.storage.scans.findScan(scan.id, { userId: user, teamId: null })).toMatchObject({
          status: 'queued',
          attempt: 1,
          startedAt: null,
        });
        expect(await fresh.storage.scans.claimNextScan('third', later, LEASE_MS)).toMatchObject({
          attempt: 2,
        });
      });
    });

    it('never gives one scan to two workers claiming at once (separate connections)', async () => {
      await withFreshDatabase(async (fresh, _user, create) => {
        const ids: string[] = [];
        for (let i = 0; i < 12; i++) {
          const scan = await create(`u${i}`, '2026-03-01T10:00:00Z');
          ids.push(scan.id);
        }
        // Opened one after another: SQLite migrations take the write lock synchronously on open.
        const workers = [await fresh.open(), await fresh.open(), await fresh.open()];
        const now = at('2026-03-01T10:01:00Z');
        const claimed = await Promise.all(
          workers.flatMap((w, n) =>
            Array.from({ length: 6 }, () => w.scans.claimNextScan(`w${n}`, now, LEASE_MS)),
          ),
        );
        const got = claimed.filter((c) => c !== null).map((c) => c.id);
        expect(got).toHaveLength(12);
        expect(new Set(got)).toEqual(new Set(ids));
      });
    });
  });
}
