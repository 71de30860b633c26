import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ScanError } from '../scanner/index.js';
import { DatabaseUnavailableError } from '../storage/index.js';
import { AppApiError } from './app-a/api-client.js';
import type { AppScanRunner } from './app-a/app-scan.js';
import { loggableName } from './errors.js';
import { CloneError } from './scan-clone.js';
import { removeLeftovers } from './scan-leftovers.js';
import type { ScanJob, ScanOutcome, ScanQueue } from './scan-queue.js';
import { runScan } from './scan-run.js';
import { withinMs } from './within-ms.js';

export interface ScanWorkerOptions {
  queue: ScanQueue;
  /** Clones go in directories `scan-<pid>-*` here; leftovers of dead processes are removed at start. */
  workDir: string;
  maxBytes: number;
  timeoutMs: number;
  /** The queue's lease; the worker renews it three times per lease. */
  leaseMs: number;
  logger: Logger;
  /** How often an idle worker asks the queue (an enqueue in this process wakes it at once). */
  pollMs?: number;
  /** Progress is written at most this often (a row write per commit would be thousands a second). */
  progressIntervalMs?: number;
  /** A scan whose worker died this many times (it may be what kills it) fails instead of running again. */
  maxAttempts?: number;
  sizeCheckMs?: number;
  /** The scan itself; tests replace it to hold a scan still. */
  run?: typeof runScan;
  /** The GitHub application's scans (jobs with an `appJob`); absent when it is not configured. */
  app?: AppScanRunner;
}

export interface ScanWorker {
  /** Stops taking jobs; a scan in progress is stopped and given back to the queue. */
  stop(): Promise<void>;
}

/** Why a scan was stopped from outside: its time bound, its lease lost, or the worker stopping. */
class ScanStop extends Error {
  constructor(readonly kind: 'timeout' | 'lease-lost' | 'shutdown') {
    super(kind);
    this.name = 'ScanStop';
  }
}

const CLAIM_RETRY_MS = 5000;
/** How long a stopped run gets to end its processes before its directory is removed anyway. */
const RUN_SETTLE_MS = 10_000;
/** How long a finished scan's result is tried again while the database is unavailable, and how often. */
const STORE_RETRY_MS = 20_000;
const STORE_RETRY_INTERVAL_MS = 1000;

/**
 * The worker inside `svc serve`: one scan at a time, taken from the queue, run within its bounds
 * (bytes, time), its progress written as it goes, its lease renewed while it runs, its directory
 * removed whatever happens. When the queue says the lease is gone, the scan stops at once and
 * writes nothing more: another worker has it.
 */
export async function startScanWorker(options: ScanWorkerOptions): Promise<ScanWorker> {
  const { queue, logger } = options;
  const pollMs = options.pollMs ?? 1000;
  await mkdir(options.workDir, { recursive: true });
  await removeLeftovers(options.workDir, logger);

  let stopping = false;
  let current: AbortController | null = null;
  let wake: (() => void) | null = null;
  // An enqueue while the worker is asking the queue (not yet asleep) must not be lost: it is
  // remembered, and the next sleep returns at once.
  let enqueuedMeanwhile = false;
  const unsubscribe = queue.onEnqueue(() => {
    enqueuedMeanwhile = true;
    wake?.();
  });
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (enqueuedMeanwhile || stopping) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  const loop = (async () => {
    while (!stopping) {
      let job: ScanJob | null;
      enqueuedMeanwhile = false;
      try {
        job = await queue.claim();
      } catch (e) {
        logger.warn({ error: loggableName(e) }, 'scan queue unavailable; retrying');
        await sleep(CLAIM_RETRY_MS);
        continue;
      }
      if (job === null) {
        await sleep(pollMs);
        continue;
      }
      current = new AbortController();
      await runJob(job, current, options).catch((e) =>
        logger.error({ scan: job.id, error: loggableName(e) }, 'scan worker error'),
      );
      current = null;
    }
  })();

  return {
    async stop() {
      stopping = true;
      unsubscribe();
      current?.abort(new ScanStop('shutdown'));
      wake?.();
      await loop;
    },
  };
}

async function runJob(job: ScanJob, controller: AbortController, options: ScanWorkerOptions): Promise<void> {
  const { queue, logger } = options;
  const maxAttempts = options.maxAttempts ?? 3;
  if (job.attempt > maxAttempts) {
    const reason = `the scan was interrupted ${maxAttempts} times and is not retried`;
    if (await queue.fail(job.id, reason)) await options.app?.failed(job, reason);
    logger.warn({ scan: job.id, attempt: job.attempt }, 'scan given up');
    return;
  }
  // Before any timer: if this fails (a full disk), nothing is left running; the lease runs out and
  // the scan is tried again.
  const dir = await mkdtemp(join(options.workDir, `scan-${process.pid}-`));
  const { signal } = controller;
  const stop = (kind: ScanStop['kind']) => controller.abort(new ScanStop(kind));
  // A write refused means the lease is gone: stop, and leave the scan to its new holder.
  const held = (written: boolean) => {
    if (!written) stop('lease-lost');
  };
  const timeout = setTimeout(() => stop('timeout'), options.timeoutMs);
  const renewal = setInterval(() => {
    queue
      .renew(job.id)
      .then(held, (e) => logger.warn({ scan: job.id, error: loggableName(e) }, 'lease renewal failed'));
  }, options.leaseMs / 3);
  const progressMs = options.progressIntervalMs ?? 1000;
  type Progress = { done: number; total: number };
  let progress: Progress | null = null;
  let written: Progress | null = null;
  const writeProgress = async () => {
    if (progress === null || progress === written) return;
    written = progress;
    held(await queue.progress(job.id, progress.done, progress.total));
  };
  const progressTimer = setInterval(() => {
    writeProgress().catch(() => {}); // the next one or the result carries it
  }, progressMs);

  const started = Date.now();
  logger.info({ scan: job.id, attempt: job.attempt }, 'scan started');
  let scanning: Promise<ScanOutcome> | undefined;
  try {
    const onProgress = (done: number, total: number) => {
      progress = { done, total };
    };
    scanning =
      job.appJob === null
        ? (options.run ?? runScan)({
            url: job.url,
            dir,
            maxBytes: options.maxBytes,
            signal,
            sizeCheckMs: options.sizeCheckMs,
            progressMs,
            onProgress,
          })
        : runAppJob(job, options, {
            dir,
            maxBytes: options.maxBytes,
            signal,
            progressMs,
            onProgress,
            recordCheckRun: async (checkRunId) => {
              const recorded = await queue.recordCheckRun(job.id, checkRunId);
              held(recorded);
              return recorded;
            },
          });
    const outcome = await untilAborted(scanning, signal);
    await writeProgress();
    if (signal.aborted) throw signal.reason;
    await settle(job, () => queue.complete(job.id, outcome), signal, 'done', started, options);
  } catch (e) {
    const stopKind =
      e instanceof ScanStop ? e.kind : signal.aborted ? (signal.reason as ScanStop).kind : null;
    if (e instanceof DatabaseUnavailableError) {
      // Nothing can be written, a failure neither: the lease lapses and the scan runs again.
      logger.warn({ scan: job.id, reason: e.reason }, 'scan result not stored: database unavailable');
    } else if (stopKind === 'lease-lost') {
      logger.warn({ scan: job.id }, 'scan stopped: lease lost (another worker runs it) or scan canceled');
    } else if (stopKind === 'shutdown') {
      await queue.release(job.id);
      logger.info({ scan: job.id }, 'scan given back to the queue (stopping)');
    } else {
      const reason =
        stopKind === 'timeout'
          ? `the scan took longer than ${options.timeoutMs / 1000} s`
          : failureReason(e, logger, job);
      await settle(job, () => queue.fail(job.id, reason), signal, 'failed', started, options, reason);
      if (job.appJob !== null) await options.app?.failed(job, reason);
    }
  } finally {
    clearTimeout(timeout);
    clearInterval(renewal);
    clearInterval(progressTimer);
    // After an abort the run settles once its processes are dead; removing the directory before
    // that could race a git still creating files in it.
    await settledWithin(scanning, RUN_SETTLE_MS);
    // Git may still be dying (killed by the signal): retried until its files are gone.
    await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }).catch((e) =>
      logger.error({ scan: job.id, error: loggableName(e) }, 'scan directory not removed'),
    );
  }
}

/**
 * Writes a scan's end (done or failed), tried again while the database is unavailable (a restart
 * takes seconds; the scan took longer), until the worker stops or its lease is lost. Safe to repeat:
 * once the lease has lapsed and another worker holds the scan, the write is refused.
 */
async function settle(
  job: ScanJob,
  write: () => Promise<boolean>,
  signal: AbortSignal,
  status: 'done' | 'failed',
  started: number,
  options: ScanWorkerOptions,
  reason?: string,
): Promise<void> {
  const { logger } = options;
  const ms = Date.now() - started;
  // A scan past its time bound is aborted too, and its failure must still be written.
  const stopped = () => signal.aborted && (signal.reason as ScanStop).kind !== 'timeout';
  const deadline = Date.now() + STORE_RETRY_MS;
  for (;;) {
    try {
      if (await write()) logger.info({ scan: job.id, status, reason, ms }, 'scan finished');
      else logger.warn({ scan: job.id, status }, 'scan result dropped: the lease was lost');
      return;
    } catch (e) {
      if (!(e instanceof DatabaseUnavailableError) || stopped() || Date.now() > deadline) throw e;
      logger.warn({ scan: job.id, reason: e.reason }, 'scan result not stored yet: database unavailable');
      await new Promise((resolve) => setTimeout(resolve, STORE_RETRY_INTERVAL_MS));
    }
  }
}

/** An application scan, or its failure when this instance was not configured for the application. */
function runAppJob(
  job: ScanJob,
  options: ScanWorkerOptions,
  context: Parameters<AppScanRunner['run']>[1],
): Promise<ScanOutcome> {
  if (options.app === undefined) {
    return Promise.reject(new AppNotConfigured());
  }
  return options.app.run(job, context);
}

class AppNotConfigured extends Error {
  constructor() {
    super('the GitHub application is not configured on the instance that took this scan');
    this.name = 'AppNotConfigured';
  }
}

/** The reason a user sees: the clone's own words, the scanner's one-line kinds, else a generic one. */
function failureReason(error: unknown, logger: Logger, job: ScanJob): string {
  // These messages are one line and never hold a token or a secret.
  if (error instanceof CloneError || error instanceof AppApiError || error instanceof AppNotConfigured) {
    return error.message;
  }
  if (error instanceof ScanError) {
    // The scanner's messages name temp paths: logged, not shown.
    logger.warn({ scan: job.id, error: error.message }, 'scanner error');
    return 'the repository could not be scanned';
  }
  logger.error({ scan: job.id, error: loggableName(error) }, 'scan failed unexpectedly');
  return 'internal error while scanning';
}

/** Waits for a promise to settle, however it does, or for `ms`, whichever comes first. */
async function settledWithin(promise: Promise<unknown> | undefined, ms: number): Promise<void> {
  if (promise === undefined) return;
  await withinMs(
    promise.catch(() => {}),
    ms,
  ).catch(() => {});
}

/** The scan's result, or the abort's reason as soon as the signal fires (its gits are killed meanwhile). */
function untilAborted(scanning: Promise<ScanOutcome>, signal: AbortSignal): Promise<ScanOutcome> {
  scanning.catch(() => {}); // settles after an abort, with nobody waiting
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    scanning.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
