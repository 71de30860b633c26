import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger } from '../../test/helpers/capture-logger.js';
import {
  DIALECTS,
  openTestDatabase,
  REDIS_URL,
  redisAvailable,
  skipDialect,
  type TestDatabase,
} from '../../test/helpers/databases.js';
import { freePort } from '../../test/helpers/service-process.js';
import type { ScanQueue } from './scan-queue.js';
import { bullmqScanQueue } from './scan-queue-bullmq.js';

const redisUp = await redisAvailable('BullMQ scan queue tests');

for (const dialect of DIALECTS) {
  describe.skipIf(!redisUp || (await skipDialect(dialect, 'BullMQ scan queue tests')))(
    `the BullMQ scan queue on Redis, with the rows on ${dialect}`,
    () => {
      let db: TestDatabase;
      let user: number;
      let prefix: string;
      const queues: ScanQueue[] = [];

      beforeAll(async () => {
        db = await openTestDatabase(dialect);
        user = (await db.storage.accounts.createUser({ email: 'q@example.test' })).id;
      });
      afterAll(async () => {
        await Promise.all(queues.map((q) => q.close()));
        await db.cleanup();
      });

      /** A queue for one worker, all of a test's workers on one key prefix of their own. */
      const queueFor = (owner: string, leaseMs = 30_000, redisUrl = REDIS_URL) => {
        const queue = bullmqScanQueue({
          redisUrl,
          logger: captureLogger().logger,
          scans: db.storage.scans,
          owner,
          leaseMs,
          now: () => new Date(),
          prefix,
        });
        queues.push(queue);
        return queue;
      };
      const fresh = () => {
        prefix = `svc-test-${randomBytes(4).toString('hex')}`;
      };
      const create = async () =>
        (
          await db.storage.scans.createScan({
            userId: user,
            teamId: null,
            url: 'https://x.test/o/r',
            at: new Date(),
          })
        ).id;
      const rowOf = async (id: string) =>
        (await db.storage.scans.findScan(id, { userId: user, teamId: null }))!;
      const claimWithin = async (queue: ScanQueue, ms: number) => {
        const deadline = Date.now() + ms;
        for (;;) {
          const job = await queue.claim();
          if (job !== null || Date.now() > deadline) return job;
          await new Promise((r) => setTimeout(r, 100));
        }
      };

      it('gives a scan to one worker only; its writes land, and the job leaves Redis when it ends', async () => {
        fresh();
        const [a, b] = [queueFor('a'), queueFor('b')];
        const id = await create();
        await a.enqueue(id);
        await a.enqueue(id); // twice: still one job
        const [first, second] = await Promise.all([a.claim(), b.claim()]);
        const claimed = [first, second].filter((j) => j !== null);
        expect(claimed).toEqual([
          { id, url: 'https://x.test/o/r', attempt: 1, appJob: null, checkRunId: null },
        ]);
        const holder = first === null ? b : a;
        const other = first === null ? a : b;
        expect(await holder.renew(id)).toBe(true);
        expect(await holder.progress(id, 1, 2)).toBe(true);
        expect(await other.progress(id, 2, 2)).toBe(false);
        expect(await holder.complete(id, { summary: { total: 0 }, findings: [] })).toBe(true);
        expect(await rowOf(id)).toMatchObject({ status: 'done', progress: { done: 1, total: 2 } });
        expect(await other.claim()).toBeNull();
        const redis = new Redis(REDIS_URL);
        try {
          expect(await redis.keys(`${prefix}:svc-scans:${id}*`)).toEqual([]);
        } finally {
          redis.disconnect();
        }
      });

      it("runs a dead worker's scan again elsewhere once its lock lapses, and refuses the dead one's writes", async () => {
        fresh();
        const dead = queueFor('dead', 1000);
        const alive = queueFor('alive', 1000);
        const id = await create();
        await dead.enqueue(id);
        expect(await dead.claim()).toMatchObject({ id, attempt: 1 });
        // The dead worker renews nothing more. The live one's stalled check puts the job back.
        const started = Date.now();
        const again = await claimWithin(alive, 10_000);
        expect(again).toMatchObject({ id, attempt: 2 });
        expect(Date.now() - started).toBeGreaterThanOrEqual(900);
        expect(await dead.renew(id)).toBe(false);
        expect(await dead.complete(id, { summary: null, findings: [] })).toBe(false);
        expect(await rowOf(id)).toMatchObject({ status: 'running', attempt: 2 });
        expect(await alive.fail(id, 'test over')).toBe(true);
        expect(await rowOf(id)).toMatchObject({ status: 'failed', error: 'test over' });
      });

      it('gives a released scan back at once, without counting the attempt', async () => {
        fresh();
        const [a, b] = [queueFor('a'), queueFor('b')];
        const id = await create();
        await a.enqueue(id);
        expect(await a.claim()).toMatchObject({ id, attempt: 1 });
        expect(await a.release(id)).toBe(true);
        expect(await rowOf(id)).toMatchObject({ status: 'queued' });
        expect(await b.claim()).toMatchObject({ id, attempt: 1 });
        expect(await b.complete(id, { summary: null, findings: [] })).toBe(true);
      });

      it('finds the scans Redis lost (a failed enqueue, a restart without persistence) and runs them', async () => {
        fresh();
        // Started while Redis was down: the enqueue fails, is logged and not thrown (the row exists).
        const id = await create();
        const { logger, logs } = captureLogger();
        const offline = bullmqScanQueue({
          redisUrl: `redis://127.0.0.1:${await freePort()}`,
          logger,
          scans: db.storage.scans,
          owner: 'offline',
          leaseMs: 500,
          now: () => new Date(),
          prefix,
        });
        queues.push(offline);
        await offline.enqueue(id);
        expect(logs.join('')).toContain('scan not handed to Redis');
        const worker = queueFor('w', 500);
        const job = await claimWithin(worker, 5000);
        expect(job).toMatchObject({ id });
        expect(await worker.complete(id, { summary: null, findings: [] })).toBe(true);
      });

      it("takes work fairly per user: B's one scan, queued after A's five, runs before A's later ones", async () => {
        fresh();
        const worker = queueFor('w');
        const userOf = async (name: string) =>
          (await db.storage.accounts.createUser({ email: `${name}-${prefix}@example.test` })).id;
        const userA = await userOf('a');
        const userB = await userOf('b');
        const urls = new Map<string, string>();
        const enqueue = async (userId: number, url: string) => {
          const { id } = await db.storage.scans.createScan({ userId, teamId: null, url, at: new Date() });
          urls.set(id, url);
          await worker.enqueue(id);
        };
        for (let i = 1; i <= 5; i++) await enqueue(userA, `a${i}`);
        await enqueue(userB, 'b1');
        const order: string[] = [];
        for (let job = await worker.claim(); job !== null; job = await worker.claim()) {
          order.push(urls.get(job.id)!);
          expect(await worker.complete(job.id, { summary: null, findings: [] })).toBe(true);
        }
        expect(order).toEqual(['a1', 'b1', 'a2', 'a3', 'a4', 'a5']);
      });

      it('drops a job whose scan has already ended, and goes on to the next', async () => {
        fresh();
        const [a, b] = [queueFor('a'), queueFor('b')];
        const ended = await create();
        const next = await create();
        await a.enqueue(ended);
        await a.enqueue(next);
        // The row ended by another path (a worker that wrote the result and died before the job's end).
        const holder = queueFor('holder');
        expect(await db.storage.scans.claimScan(ended, 'elsewhere', new Date(), 1000)).not.toBeNull();
        await db.storage.scans.failScan(ended, 'elsewhere', 'ended', new Date());
        expect(await b.claim()).toMatchObject({ id: next });
        expect(await holder.claim()).toBeNull();
        expect(await b.complete(next, { summary: null, findings: [] })).toBe(true);
      });
    },
  );
}
