import { type Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ScanRepository } from '../storage/index.js';
import { loggableName } from './errors.js';
import type { ScanJob, ScanQueue } from './scan-queue.js';
import { withinMs } from './within-ms.js';

/** The BullMQ queue's name (its keys are `bull:svc-scans:*` in Redis). */
export const BULLMQ_QUEUE_NAME = 'svc-scans';

/** How long starting a scan waits for Redis to take its job. */
const ENQUEUE_TIMEOUT_MS = 2000;

/** How many unheld scans one reconciliation hands to BullMQ at most. */
const RECONCILE_BATCH = 100;

/** BullMQ's largest priority (2^21). */
const MAX_PRIORITY = 2_097_152;

export interface BullmqQueueOptions {
  redisUrl: string;
  scans: ScanRepository;
  /** This worker's name: each claim's lock token is `owner:n`. */
  owner: string;
  /** BullMQ's lock duration, and the scan row's lease. */
  leaseMs: number;
  now: () => Date;
  /** Key prefix in Redis (tests use one of their own). */
  prefix?: string;
  logger: Logger;
}

interface Held {
  job: Job<{ id: string }>;
  token: string;
}

/**
 * The scale-out queue: BullMQ on Redis decides which worker, on any instance, runs a scan. A job is
 * `{id}` with the scan's id as job id (adding it twice is a no-op); the scan's row stays the record.
 *
 * - A claim takes BullMQ's next job under a lock token of its own, then takes the row for that token
 *   (`claimScan`): the row's owner is the fence. Every write names the token and is refused once
 *   another claim took the row, so a worker that lost its lock (stalled, partitioned) stops.
 * - A dead worker's lock runs out; BullMQ's stalled check (run by every live worker) puts the job back
 *   in the wait list, and another worker takes it. Our own attempt count caps the re-runs, so BullMQ's
 *   stalled limit is set out of the way.
 * - Jobs leave Redis when they end (the row has the result). Redis may also lose jobs (a restart
 *   without persistence, a failed enqueue): every worker hands the database's unheld scans (queued,
 *   or running with a lapsed lease) back to BullMQ once a lease period, so no scan waits forever.
 *   So an enqueue that fails (Redis down) is logged, not thrown: the scan is already recorded, and a
 *   client told to retry would start it twice.
 */
export function bullmqScanQueue(options: BullmqQueueOptions): ScanQueue {
  const { scans, owner, leaseMs, now } = options;
  const prefix = options.prefix ?? 'bull';
  const wakers = new Set<() => void>();
  const held = new Map<string, Held>();
  let claims = 0;
  let lastReconcile = 0;

  // Made on first use: `svc admin` builds the services too, and must not connect to Redis.
  let producer: { queue: Queue; connection: Redis } | undefined;
  let consumer: { worker: Worker; connection: Redis } | undefined;
  const queue = () => {
    if (producer === undefined) {
      // No offline queue: when Redis is down an enqueue fails at once (and is logged, see enqueue).
      const connection = new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
      connection.on('error', () => {}); // reported by the failing call
      const queue = new Queue(BULLMQ_QUEUE_NAME, { connection, prefix });
      queue.on('error', () => {}); // the same errors again (BullMQ prints them if nobody listens)
      producer = { queue, connection };
    }
    return producer.queue;
  };
  const worker = async () => {
    if (consumer === undefined) {
      // BullMQ's workers block on Redis: it requires no per-request retry limit on their connection.
      const connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
      connection.on('error', () => {});
      const w = new Worker(BULLMQ_QUEUE_NAME, null, {
        connection,
        prefix,
        autorun: false,
        lockDuration: leaseMs,
        // Our renewals only: a worker whose event loop is stuck must lose the job.
        skipLockRenewal: true,
        stalledInterval: Math.max(500, Math.floor(leaseMs / 2)),
        // Re-runs are counted by the row's attempt (the worker gives up after three).
        maxStalledCount: 1_000_000,
      });
      w.on('error', () => {});
      consumer = { worker: w, connection };
      await w.startStalledCheckTimer();
    }
    return consumer.worker;
  };
  // Fair per user (issue 29): BullMQ takes jobs oldest first, so a user's fifth scan waited ahead
  // of everyone queued after it. Each job's priority is its place in its own user's line (1 for the
  // user's next scan, 2 for the one after...), and BullMQ takes the lowest priority first, oldest
  // first among equals: round-robin by user. Every job has one (BullMQ runs jobs without a
  // priority before all prioritized ones).
  const add = async (id: string) => {
    const priority = Math.min(MAX_PRIORITY, 1 + (await scans.ownQueuePosition(id)));
    return queue().add('scan', { id }, { jobId: id, priority, removeOnComplete: true, removeOnFail: true });
  };

  /** Hands the database's unheld scans to BullMQ (a no-op for those that already have a job). */
  async function reconcile(): Promise<void> {
    if (Date.now() - lastReconcile < leaseMs) return;
    lastReconcile = Date.now();
    for (const id of await scans.listUnheldScanIds(now(), RECONCILE_BATCH)) await add(id);
  }

  /** Ends this worker's hold on a job: BullMQ forgets it (the row has the outcome). */
  async function finish(id: string): Promise<void> {
    const h = held.get(id);
    held.delete(id);
    await h?.job.moveToCompleted(null, h.token, false).catch(() => {}); // the lock may be gone already
  }

  return {
    async enqueue(id) {
      try {
        // BullMQ waits for a connection that was never made (Redis down at start) without limit.
        await withinMs(add(id), ENQUEUE_TIMEOUT_MS, 'Redis did not answer');
      } catch (e) {
        options.logger.warn(
          { scan: id, error: loggableName(e) },
          'scan not handed to Redis; it runs once a worker reaches Redis again',
        );
        return;
      }
      for (const wake of wakers) wake();
    },
    async claim(): Promise<ScanJob | null> {
      const w = await worker();
      await reconcile();
      for (;;) {
        const token = `${owner}:${++claims}`;
        const job = (await w.getNextJob(token, { block: false })) as Job<{ id: string }> | undefined;
        if (!job) return null;
        const claimed = await scans.claimScan(job.data.id, token, now(), leaseMs);
        if (claimed !== null) {
          held.set(claimed.id, { job, token });
          return claimed;
        }
        // The scan ended already (its job was left behind by a worker that died at the end): dropped.
        await job.moveToCompleted(null, token, false).catch(() => {});
      }
    },
    async renew(id) {
      const h = held.get(id);
      if (h === undefined) return false;
      // extendLock answers 0 when the token no longer holds the job's lock.
      const locked = (await h.job.extendLock(h.token, leaseMs)) > 0;
      return locked && (await scans.renewScanLease(id, h.token, now(), leaseMs));
    },
    async progress(id, done, total) {
      const h = held.get(id);
      return h !== undefined && scans.recordScanProgress(id, h.token, done, total);
    },
    async complete(id, outcome) {
      const h = held.get(id);
      const written = h !== undefined && (await scans.finishScan(id, h.token, outcome, now()));
      if (written) await finish(id);
      else held.delete(id);
      return written;
    },
    async fail(id, reason) {
      const h = held.get(id);
      const written = h !== undefined && (await scans.failScan(id, h.token, reason, now()));
      if (written) await finish(id);
      else held.delete(id);
      return written;
    },
    async recordCheckRun(id, checkRunId) {
      const h = held.get(id);
      return h !== undefined && scans.recordCheckRun(id, h.token, checkRunId);
    },
    async release(id) {
      const h = held.get(id);
      held.delete(id);
      if (h === undefined || !(await scans.releaseScan(id, h.token))) return false;
      // Back to the wait list at once, for this or another instance.
      await h.job.moveToWait(h.token).catch(() => {});
      return true;
    },
    onEnqueue(wake) {
      wakers.add(wake);
      return () => wakers.delete(wake);
    },
    async close() {
      await consumer?.worker.close().catch(() => {});
      await producer?.queue.close().catch(() => {});
      await Promise.all(
        [consumer?.connection.quit(), producer?.connection.quit()].map((p) => p?.catch(() => {})),
      );
      consumer = undefined;
      producer = undefined;
    },
  };
}
