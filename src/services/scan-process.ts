import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  type CommitRange,
  renderReport,
  ScanError,
  type ScanResult,
  scanRepository,
} from '../scanner/index.js';
import type { ScanScope } from '../storage/index.js';
import { createVerifier, type ProviderUrls } from '../verify/index.js';
import { VERSION } from '../version.js';
import type { ScanOutcome } from './scan-queue.js';

/**
 * The scan of one clone in a process of its own (scan-process-entry.ts, forked by scan-run.ts with an
 * IPC channel), so that the scanner's CPU-bound stretches (tens of milliseconds of gating and parsing
 * at a time, measured by npm run bench:scans) never hold up the service's requests, and its memory
 * peaks are its own. It gets `{path, progressMs}`, sends `progress` messages (at most every
 * progressMs), then `result` or `error`, and disconnects. When the parent goes away (stops it, or is killed) the channel closes: the scan is
 * aborted, which kills its gits, and nothing keeps the process alive.
 */
export type ScanProcessMessage =
  | { type: 'progress'; done: number; total: number }
  | { type: 'result'; outcome: ScanOutcome; commitsScanned: number; markdown?: string }
  | { type: 'error'; scanError: boolean; code: ScanError['code']; message: string };

/**
 * What the parent sends: the clone to scan, and how often it wants progress at most. A dashboard scan
 * reads the whole history and never checks credentials; the GitHub application's scan names a
 * range of commits, the branch `.svcignore` is read from, the providers to check found credentials
 * with (here, where the secrets are: they never cross to the parent), and wants the markdown report.
 */
export interface ScanProcessRequest {
  path: string;
  progressMs: number;
  commits?: CommitRange;
  defaultBranch?: string;
  verify?: ProviderUrls;
  markdown?: boolean;
}

/** Serves the one request of this forked process (scan-process-entry.ts calls it; nothing else may). */
export function serveScanRequest(): void {
  if (process.send === undefined) throw new Error('the scan process must be forked with an IPC channel');
  const controller = new AbortController();
  const send = (message: ScanProcessMessage) => process.send?.(message);
  process.on('disconnect', () => controller.abort());
  process.once('message', (request: ScanProcessRequest) => {
    let last = 0;
    scanRepository({
      path: request.path,
      commits: request.commits,
      defaultBranch: request.defaultBranch,
      verify: request.verify === undefined ? undefined : createVerifier({ urls: request.verify }),
      signal: controller.signal,
      onProgress: (done, total) => {
        const now = Date.now();
        if (now - last < request.progressMs && done < total) return;
        last = now;
        send({ type: 'progress', done, total });
      },
    })
      .then(async (result) => ({ result, scope: await scopeOf(request, result) }))
      .then(
        ({ result, scope }) => {
          // The report decides what of a finding leaves this process: never the secret.
          const report = JSON.parse(renderReport(result, 'json', { toolVersion: VERSION })) as ScanOutcome;
          send({
            type: 'result',
            outcome: { summary: report.summary, findings: report.findings, scope },
            commitsScanned: result.commitsScanned,
            markdown: request.markdown
              ? renderReport(result, 'markdown', { toolVersion: VERSION })
              : undefined,
          });
        },
        (e: unknown) =>
          send({
            type: 'error',
            scanError: e instanceof ScanError,
            code: e instanceof ScanError ? e.code : 'fatal',
            // A ScanError's message is one line and never a secret; anything else by name only.
            message: e instanceof ScanError ? e.message : e instanceof Error ? e.name : 'unknown',
          }),
      )
      .finally(() => {
        if (process.connected) process.disconnect();
      });
  });
}

/** What a whole history's scan covered; a range of commits (the application's) says nothing. */
async function scopeOf(request: ScanProcessRequest, result: ScanResult): Promise<ScanScope | undefined> {
  if (request.commits !== undefined) return undefined;
  return {
    commits: result.commitsScanned,
    ...(await countRefs(request.path)),
    defaultBranch: result.defaultBranch,
    incomplete: result.incomplete,
  };
}

/** The clone's branches and tags (a bare clone holds every branch under refs/heads). */
async function countRefs(repo: string): Promise<{ branches: number; tags: number }> {
  const { stdout } = await promisify(execFile)(
    'git',
    ['-C', repo, 'for-each-ref', '--format=%(refname)', 'refs/heads', 'refs/tags'],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  const refs = stdout.split('\n');
  return {
    branches: refs.filter((r) => r.startsWith('refs/heads/')).length,
    tags: refs.filter((r) => r.startsWith('refs/tags/')).length,
  };
}
