import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ProviderUrls } from '../../verify/index.js';
import { loggableName } from '../errors.js';
import { CloneError } from '../scan-clone.js';
import type { ScanJob, ScanOutcome } from '../scan-queue.js';
import { scanInChildProcess } from '../scan-run.js';
import { type AppApi, AppApiError } from './api-client.js';
import { CHECK_RUN_NAME, checkRunResult, failedCheckRun, publishCheckRun } from './check-run.js';
import { fetchCommits } from './fetch-commits.js';
import { type AppScanJob, ownerAndName, parseAppScanJob } from './job.js';

export interface AppScanRunnerOptions {
  api: AppApi;
  /** `SVC_CODEHOST_GIT_URL`: repositories are fetched from `<gitUrl>/<owner>/<name>.git`. */
  gitUrl: string;
  /** Credential checks are on for the application's scans (spec 3), with the command line's limits. */
  providers: ProviderUrls;
  logger: Logger;
}

/** What the worker gives one run: its own directory, its bounds, and its lease-checked writes. */
export interface AppScanContext {
  dir: string;
  maxBytes: number;
  signal: AbortSignal;
  progressMs: number;
  onProgress: (done: number, total: number) => void;
  /** Records the check run on the scan's row; false when the lease is gone. */
  recordCheckRun: (checkRunId: string) => Promise<boolean>;
}

/** The worker's side of the GitHub application: run one job, or report one that failed. */
export interface AppScanRunner {
  run(job: ScanJob, context: AppScanContext): Promise<ScanOutcome>;
  /** The scan could not be done (the reason is safe to show): its check run says so, neutrally. */
  failed(job: ScanJob, reason: string): Promise<void>;
}

/**
 * One application scan: a check run `in_progress` on the head commit (reused when an interrupted run
 * of this scan made one), a fetch of just the commits the job names, the scanner over them with
 * credential checks in a process of its own, then the check run completed with the result.
 */
export function createAppScanRunner(options: AppScanRunnerOptions): AppScanRunner {
  const { api, logger } = options;
  // Check runs created by runs in progress here: a run that then fails completes its own check run.
  const createdHere = new Map<string, string>();

  async function run(job: ScanJob, context: AppScanContext): Promise<ScanOutcome> {
    const app = jobOf(job);
    const repo = ownerAndName(app.repository);
    const started = Date.now();
    let checkRunId = job.checkRunId === null ? null : Number(job.checkRunId);
    if (checkRunId === null) {
      const created = await api.createCheckRun(
        app.installationId,
        repo,
        {
          name: CHECK_RUN_NAME,
          head_sha: app.head,
          status: 'in_progress',
          started_at: new Date().toISOString(),
          external_id: job.id,
        },
        context.signal,
      );
      checkRunId = created.id;
      createdHere.set(job.id, String(checkRunId));
      await context.recordCheckRun(String(checkRunId));
    }

    const home = join(context.dir, 'home');
    await mkdir(home);
    const fetched = await fetchCommits({
      job: app,
      url: `${options.gitUrl}/${repo.owner}/${repo.name}.git`,
      into: join(context.dir, 'repo.git'),
      emptyHome: home,
      maxBytes: context.maxBytes,
      signal: context.signal,
      authorization: async () =>
        basicAuthorization(await api.installationToken(app.installationId, context.signal)),
      onRefused: () => api.forgetToken(app.installationId),
    }).catch((e: unknown) => {
      // The clone's words speak of public repositories: here a token was used, and a commit may be gone.
      throw e instanceof CloneError && (e.reason === 'not-found' || e.reason === 'failed')
        ? new CloneError(
            'not-found',
            'the repository or its commits could not be fetched with the installation token',
          )
        : e;
    });
    const fetchedMs = Date.now() - started;
    if (fetched.unavailable.length > 0) {
      logger.info(
        { scan: job.id, gone: fetched.unavailable.length },
        'excluded commits are gone (force-push): the default branch stands in',
      );
    }

    const {
      outcome,
      commitsScanned,
      markdown = '',
    } = await scanInChildProcess(
      {
        path: join(context.dir, 'repo.git'),
        progressMs: context.progressMs,
        commits: fetched.range,
        defaultBranch: fetched.defaultBranchRef,
        verify: options.providers,
        markdown: true,
      },
      context.signal,
      context.onProgress,
    );
    const result = checkRunResult(outcome, markdown, commitsScanned);
    await publishCheckRun(api, app.installationId, repo, checkRunId, result, context.signal);
    createdHere.delete(job.id);
    logger.info(
      {
        scan: job.id,
        commitsFetched: fetched.commitsFetched,
        blobsFetched: fetched.blobsFetched,
        conclusion: result.conclusion,
        annotations: result.annotationBatches.flat().length,
        fetchMs: fetchedMs,
        ms: Date.now() - started,
      },
      'application scan reported',
    );
    return outcome;
  }

  async function failed(job: ScanJob, reason: string): Promise<void> {
    const app = parseAppScanJob(job.appJob ?? '');
    if (app === null) return;
    const repo = ownerAndName(app.repository);
    const { conclusion, output } = failedCheckRun(reason);
    const checkRunId = job.checkRunId ?? createdHere.get(job.id) ?? null;
    createdHere.delete(job.id);
    try {
      if (checkRunId !== null) {
        await api.updateCheckRun(app.installationId, repo, Number(checkRunId), {
          status: 'completed',
          conclusion,
          completed_at: new Date().toISOString(),
          output,
        });
      } else {
        await api.createCheckRun(app.installationId, repo, {
          name: CHECK_RUN_NAME,
          head_sha: app.head,
          status: 'completed',
          conclusion,
          completed_at: new Date().toISOString(),
          output,
          external_id: job.id,
        });
      }
    } catch (e) {
      logger.warn(
        { scan: job.id, error: e instanceof AppApiError ? e.message : loggableName(e) },
        'check run not updated with the failure',
      );
    }
  }

  return { run, failed };
}

function jobOf(job: ScanJob): AppScanJob {
  const app = parseAppScanJob(job.appJob ?? '');
  if (app === null) throw new Error('the application scan job is not readable');
  return app;
}

/** Git over HTTP takes an installation token as the password of user `x-access-token`. */
function basicAuthorization(token: string): string {
  return `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
}
