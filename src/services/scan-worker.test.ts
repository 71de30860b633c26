import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../../test/helpers/capture-logger.js';
import { DIALECTS, openTestDatabase, skipDialect, type TestDatabase } from '../../test/helpers/databases.js';
import { fakeCloudKeyId } from '../../test/helpers/fake-secrets.js';
import { GitHttpServer } from '../../test/helpers/git-http-server.js';
import { TestRepo } from '../../test/helpers/git-repo.js';
import { DatabaseUnavailableError } from '../storage/index.js';
import { databaseScanQueue } from './scan-queue.js';
import { type ScanWorkerOptions, startScanWorker } from './scan-worker.js';

let git: GitHttpServer;
let stalled: GitHttpServer;
let url: string;

beforeAll(async () => {
  [git, stalled] = await Promise.all([GitHttpServer.start(), GitHttpServer.start({ stall: true })]);
  const repo = new TestRepo();
  repo.commitFiles({ 'app.env': `AWS_ACCESS_KEY_ID=${fakeCloudKeyId(5)}\n` }, 'settings');
  url = git.publish(repo.dir, 'octo', 'app');
  repo.cleanup();
});
afterAll(async () => {
  await Promise.all([git?.stop(), stalled?.stop()]);
});

for (const dialect of DIALECTS) {
  describe.skipIf(await skipDialect(dialect, 'scan worker tests'))(`the scan worker on ${dialect}`, () => {
    let db: TestDatabase;
    let workDir: string;
    let user: number;
    const { logger, logs } = captureLogger();
    beforeAll(async () => {
      db = await openTestDatabase(dialect);
      workDir = mkdtempSync(join(tmpdir(), 'svc-worker-'));
      user = (await db.storage.accounts.createUser({ email: 'w@example.test' })).id;
    });
    afterAll(async () => {
      await db.cleanup();
      rmSync(workDir, { recursive: true, force: true });
    });

    const queueFor = (owner: string, leaseMs = 30_000) =>
      databaseScanQueue({ scans: db.storage.scans, owner, leaseMs, now: () => new Date() });
    const viewer = () => ({ userId: user, teamId: null });
    const scanOf = async (id: string) => (await db.storage.scans.findScan(id, viewer()))!;
    const until = async (id: string, test: (status: string) => boolean) => {
      for (;;) {
        const scan = await scanOf(id);
        if (test(scan.status)) return scan;
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    const startWorker = (options: Pick<ScanWorkerOptions, 'queue' | 'leaseMs' | 'pollMs'>) =>
      startScanWorker({ workDir, maxBytes: 1 << 30, timeoutMs: 60_000, logger, ...options });
    const create = (scanUrl: string) =>
      db.storage.scans.createScan({ userId: user, teamId: null, url: scanUrl, at: new Date() });

    it('runs a queued scan to done, woken by the enqueue', async () => {
      const queue = queueFor('w1');
      // A long poll: only the enqueue can wake the worker in time.
      const worker = await startWorker({ queue, leaseMs: 30_000, pollMs: 3_600_000 });
      try {
        await new Promise((r) => setTimeout(r, 100));
        const scan = await create(url);
        await queue.enqueue(scan.id);
        const done = await until(scan.id, (s) => s === 'done');
        expect(done.findings).toHaveLength(1);
        expect(done.attempt).toBe(1);
      } finally {
        await worker.stop();
      }
    });

    it('does not lose an enqueue that comes while it is asking the queue', async () => {
      const real = queueFor('w0');
      let asking: (() => void) | undefined;
      const asked = new Promise<void>((resolve) => {
        asking = resolve;
      });
      let release: (() => void) | undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let first = true;
      // The first claim finds nothing and answers only after the scan was enqueued.
      const queue = {
        ...real,
        async claim() {
          if (!first) return real.claim();
          first = false;
          asking?.();
          await held;
          return null;
        },
      };
      const worker = await startWorker({ queue, leaseMs: 30_000, pollMs: 3_600_000 });
      try {
        await asked;
        const scan = await create(url);
        await queue.enqueue(scan.id);
        release?.();
        expect((await until(scan.id, (s) => s === 'done')).findings).toHaveLength(1);
      } finally {
        await worker.stop();
      }
    });

    it.each([
      ['a finished scan, instead of failing it', 'done'],
      ['a failed scan (a repository that does not exist)', 'failed'],
    ] as const)('stores %s once the database is back', async (_, status) => {
      const queue = queueFor(`w-outage-${status}`);
      // The first two writes of the scan's end meet a database that is restarting.
      let refused = 0;
      const restarting =
        <A extends unknown[]>(write: (...args: A) => Promise<boolean>) =>
        async (...args: A) => {
          if (refused < 2) {
            refused++;
            throw new DatabaseUnavailableError('ECONNREFUSED');
          }
          return write(...args);
        };
      const worker = await startWorker({
        queue: { ...queue, complete: restarting(queue.complete), fail: restarting(queue.fail) },
        leaseMs: 30_000,
        pollMs: 50,
      });
      try {
        const scan = await create(status === 'done' ? url : `${git.origin}/octo/missing`);
        const ended = await until(scan.id, (s) => s !== 'queued' && s !== 'running');
        expect(ended).toMatchObject({ status, attempt: 1 });
        if (status === 'done') expect(ended.findings).toHaveLength(1);
        else expect(ended.error).toBe('repository not found or not public');
        expect(refused).toBe(2);
        const lines = logs.filter((l) => l.includes(scan.id));
        expect(lines.filter((l) => l.includes('scan result not stored yet'))).toHaveLength(2);
        expect(lines.join('')).not.toContain('failed unexpectedly');
      } finally {
        await worker.stop();
      }
    });

    it('gives a running scan back to the queue when stopped', async () => {
      const scan = await create(`${stalled.origin}/octo/stuck.git`);
      const worker = await startWorker({ queue: queueFor('w2'), leaseMs: 30_000, pollMs: 20 });
      await until(scan.id, (s) => s === 'running');
      await worker.stop();
      expect(await scanOf(scan.id)).toMatchObject({ status: 'queued', attempt: 0, startedAt: null });
      expect(readdirSync(workDir)).toEqual([]);
      // Leave the queue empty for the next test.
      const claimed = await db.storage.scans.claimNextScan('cleanup', new Date(), 1000);
      await db.storage.scans.failScan(claimed!.id, 'cleanup', 'test over', new Date());
    });

    it('stops a scan whose lease was taken over, writing nothing more to it', async () => {
      const scan = await create(`${stalled.origin}/octo/taken.git`);
      const worker = await startWorker({ queue: queueFor('w3', 300), leaseMs: 300, pollMs: 20 });
      try {
        await until(scan.id, (s) => s === 'running');
        // Another worker whose clock is past the lease takes the scan over.
        const later = new Date(Date.now() + 3_600_000);
        expect(await db.storage.scans.claimNextScan('thief', later, 3_600_000)).toMatchObject({
          id: scan.id,
          attempt: 2,
        });
        for (;;) {
          if (logs.join('').includes('scan stopped: lease lost')) break;
          await new Promise((r) => setTimeout(r, 25));
        }
        expect(await scanOf(scan.id)).toMatchObject({ status: 'running', error: null });
      } finally {
        await worker.stop();
      }
      expect(readdirSync(workDir)).toEqual([]);
      await db.storage.scans.failScan(scan.id, 'thief', 'test over', new Date());
    });

    it('fails a scan whose worker died too often instead of running it again', async () => {
      const scan = await create(url);
      // Three workers died holding it (claimed, lease run out).
      let t = Date.now() - 10 * 3_600_000;
      for (let i = 0; i < 3; i++) {
        await db.storage.scans.claimNextScan(`dead-${i}`, new Date(t), 1000);
        t += 3_600_000;
      }
      const worker = await startWorker({ queue: queueFor('w4'), leaseMs: 30_000, pollMs: 20 });
      try {
        expect(await until(scan.id, (s) => s === 'failed')).toMatchObject({
          error: 'the scan was interrupted 3 times and is not retried',
          attempt: 4,
        });
      } finally {
        await worker.stop();
      }
    });
  });
}
