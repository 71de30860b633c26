import type { ScanRepository, ScanScope } from '../storage/index.js';

/** A scan as a worker gets it from the queue. */
export interface ScanJob {
  id: string;
  url: string;
  /** 1 on the first run; more when a worker died (or was killed) holding it. */
  attempt: number;
  /** A GitHub application scan's job (JSON, read by app-a/job.ts); null for a dashboard scan. */
  appJob: string | null;
  /** The check run an application scan reports to, when an earlier run of it created one. */
  checkRunId: string | null;
}

/** What a finished scan stores: the JSON report's summary and findings, and what it covered. */
export interface ScanOutcome {
  summary: unknown;
  findings: unknown[];
  scope?: ScanScope;
}

/**
 * The queue between starting a scan and a worker running it. The scan's row is the record either
 * way; a queue decides who runs which scan and notices a worker that died. Every call a worker makes
 * about a job returns false once the worker no longer holds it (its lease ran out and another took
 * the job over), and the worker must then stop: that is what keeps a scan from running twice at once.
 * The embedded queue below keeps jobs in the database; scan-queue-bullmq.ts is the scale-out engine.
 */
export interface ScanQueue {
  /** Makes a created scan's job runnable, and wakes a worker waiting in this process. */
  enqueue(id: string): Promise<void>;
  /** The next job for this worker, or null when there is none. */
  claim(): Promise<ScanJob | null>;
  /** Keeps the job this worker's: called well within the lease. */
  renew(id: string): Promise<boolean>;
  progress(id: string, done: number, total: number): Promise<boolean>;
  complete(id: string, outcome: ScanOutcome): Promise<boolean>;
  fail(id: string, reason: string): Promise<boolean>;
  /** Records the check run an application scan reports to, so a run after this one reuses it. */
  recordCheckRun(id: string, checkRunId: string): Promise<boolean>;
  /** Gives the job back unfinished (the worker is stopping), to run again soon, here or elsewhere. */
  release(id: string): Promise<boolean>;
  /** Calls `wake` whenever a job is enqueued in this process; returns the unsubscribe. */
  onEnqueue(wake: () => void): () => void;
  /** Closes the queue's own connections (the process is stopping). */
  close(): Promise<void>;
}

export interface DatabaseQueueOptions {
  scans: ScanRepository;
  /** This worker's name in leases: unique per process (host, pid and a random part). */
  owner: string;
  leaseMs: number;
  now: () => Date;
}

/**
 * The embedded queue: the scans table is the queue. A worker polls it and takes a job with one
 * atomic claim that leases it; a dead worker's lease runs out and the job is claimed again.
 */
export function databaseScanQueue(options: DatabaseQueueOptions): ScanQueue {
  const { scans, owner, leaseMs, now } = options;
  const wakers = new Set<() => void>();
  return {
    async enqueue() {
      // The row created by the scan service is already the job; waiting workers are told at once.
      for (const wake of wakers) wake();
    },
    claim: () => scans.claimNextScan(owner, now(), leaseMs),
    renew: (id) => scans.renewScanLease(id, owner, now(), leaseMs),
    progress: (id, done, total) => scans.recordScanProgress(id, owner, done, total),
    complete: (id, outcome) => scans.finishScan(id, owner, outcome, now()),
    fail: (id, reason) => scans.failScan(id, owner, reason, now()),
    recordCheckRun: (id, checkRunId) => scans.recordCheckRun(id, owner, checkRunId),
    release: (id) => scans.releaseScan(id, owner),
    onEnqueue(wake) {
      wakers.add(wake);
      return () => wakers.delete(wake);
    },
    async close() {
      // Nothing of its own: the database is the storage's.
    },
  };
}
