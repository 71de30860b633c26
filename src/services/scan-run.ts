import { fork } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScanError } from '../scanner/index.js';
import { cloneRepository } from './scan-clone.js';
import { lowerPriority } from './scan-priority.js';
import type { ScanProcessMessage, ScanProcessRequest } from './scan-process.js';
import type { ScanOutcome } from './scan-queue.js';

export interface RunScanOptions {
  url: string;
  /** An empty directory of this run's own; the caller removes it. */
  dir: string;
  maxBytes: number;
  signal: AbortSignal;
  onProgress: (done: number, total: number) => void;
  /** Progress arrives at most this often (it crosses a process boundary). */
  progressMs: number;
  sizeCheckMs?: number;
}

/**
 * One dashboard scan: a bounded clone, then the scanner over its full history in a child process
 * (scan-process-entry.ts) with no credential checks (none is passed, so none can run), kept as the JSON
 * report's summary and findings: masked values and fingerprints, never the secret, `verification`
 * always `unchecked`.
 */
export async function runScan(options: RunScanOptions): Promise<ScanOutcome> {
  const home = join(options.dir, 'home');
  const repo = join(options.dir, 'repo.git');
  await mkdir(home);
  await cloneRepository({
    url: options.url,
    into: repo,
    emptyHome: home,
    maxBytes: options.maxBytes,
    signal: options.signal,
    sizeCheckMs: options.sizeCheckMs,
  });
  const { outcome } = await scanInChildProcess(
    { path: repo, progressMs: options.progressMs },
    options.signal,
    options.onProgress,
  );
  return outcome;
}

/**
 * The built service forks scan-process-entry.js beside this file; run from sources (tests, tsx), the
 * TypeScript file, through tsx's loader.
 */
function scanProcessEntry(): { path: string; execArgv: string[] } {
  const here = fileURLToPath(import.meta.url);
  const typescript = here.endsWith('.ts');
  return {
    path: join(here, '..', typescript ? 'scan-process-entry.ts' : 'scan-process-entry.js'),
    execArgv: typescript ? ['--import', 'tsx'] : [],
  };
}

/** A scan's result as the scan process sends it: the stored outcome, and the markdown report if asked. */
export interface ScanProcessResult {
  outcome: ScanOutcome;
  commitsScanned: number;
  markdown?: string;
}

export function scanInChildProcess(
  request: ScanProcessRequest,
  signal: AbortSignal,
  onProgress: (done: number, total: number) => void,
): Promise<ScanProcessResult> {
  signal.throwIfAborted();
  const entry = scanProcessEntry();
  return new Promise((resolve, reject) => {
    const child = fork(entry.path, [], {
      execArgv: entry.execArgv,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    lowerPriority(child.pid);
    let settled: ScanProcessResult | Error | null = null;
    // Closing the channel is the child's signal to abort (it kills its gits); SIGKILL if it lingers.
    const stop = () => {
      if (child.connected) child.disconnect();
      setTimeout(() => child.kill('SIGKILL'), 2000).unref();
    };
    signal.addEventListener('abort', stop, { once: true });
    child.on('message', (message: ScanProcessMessage) => {
      if (message.type === 'progress') onProgress(message.done, message.total);
      else if (message.type === 'result')
        settled = {
          outcome: message.outcome,
          commitsScanned: message.commitsScanned,
          markdown: message.markdown,
        };
      else
        settled = message.scanError
          ? new ScanError(message.code, message.message)
          : new Error(message.message);
    });
    child.on('error', (e) => {
      settled ??= e;
    });
    child.on('exit', (code, killedBy) => {
      signal.removeEventListener('abort', stop);
      if (signal.aborted) return reject(signal.reason);
      if (settled === null)
        return reject(new Error(`scan process ended (${killedBy ?? `exit ${code}`}) without a result`));
      if (settled instanceof Error) return reject(settled);
      resolve(settled);
    });
    child.send(request);
  });
}
