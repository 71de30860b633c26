import { ruleById } from '../../scanner/index.js';
import type { ScanOutcome } from '../scan-queue.js';
import type { AppApi, CheckRunAnnotation, CheckRunOutput, RepositoryRef } from './api-client.js';

export const CHECK_RUN_NAME = 'svc secret scan';
/** The platform takes at most 50 annotations per request; the rest go in further updates. */
export const ANNOTATIONS_PER_REQUEST = 50;
/** The platform's limit on a check run's summary, in characters. */
const SUMMARY_LIMIT = 65_535;

/** A finding as the JSON report (and so the scan's row) has it: masked value, never the secret. */
interface ReportedFinding {
  ruleId: string;
  commit: string;
  path: string;
  line: number;
  location: string;
  maskedValue: string;
  verification: string;
  fingerprint: string;
  ignored: boolean;
}
interface ReportedSummary {
  total: number;
  failing: number;
  active: number;
}

/** What the check run says of a finished scan. */
export interface CheckRunResult {
  conclusion: 'success' | 'failure';
  output: CheckRunOutput;
  /** One annotation per finding in code, in requests of at most 50. */
  annotationBatches: CheckRunAnnotation[][];
}

/**
 * The check run of a scan: `failure` exactly when the scan fails (a finding in code that is not
 * ignored), the markdown report as its summary, and an annotation on the path and line of each code
 * finding. Everything comes from the JSON report, which holds masked values only.
 */
export function checkRunResult(
  outcome: ScanOutcome,
  markdown: string,
  commitsScanned: number,
): CheckRunResult {
  const summary = outcome.summary as ReportedSummary;
  const findings = outcome.findings as ReportedFinding[];
  const passed = summary.failing === 0;
  const annotations = findings.filter((f) => f.location === 'code').map(annotationOf);
  const batches: CheckRunAnnotation[][] = [];
  for (let i = 0; i < annotations.length; i += ANNOTATIONS_PER_REQUEST) {
    batches.push(annotations.slice(i, i + ANNOTATIONS_PER_REQUEST));
  }
  return {
    conclusion: passed ? 'success' : 'failure',
    output: { title: titleOf(summary, commitsScanned), summary: fitted(markdown) },
    annotationBatches: batches,
  };
}

function titleOf(summary: ReportedSummary, commitsScanned: number): string {
  const commits = `${commitsScanned} new commit${commitsScanned === 1 ? '' : 's'}`;
  if (summary.failing === 0) {
    return summary.total === 0
      ? `No secrets in ${commits}`
      : `No secrets in real code in ${commits} (${summary.total} elsewhere or ignored)`;
  }
  const active = summary.active > 0 ? `, ${summary.active} ACTIVE` : '';
  return `${summary.failing} secret${summary.failing === 1 ? '' : 's'} in code${active} (${commits})`;
}

function annotationOf(f: ReportedFinding): CheckRunAnnotation {
  const rule = ruleById(f.ruleId);
  const status = f.verification === 'active' ? 'ACTIVE: revoke it now' : f.verification;
  return {
    path: f.path,
    start_line: f.line,
    end_line: f.line,
    annotation_level: f.ignored ? 'notice' : 'failure',
    title: `${rule?.title ?? f.ruleId}${f.ignored ? ' (ignored)' : ''}`,
    message:
      `${f.maskedValue} (${status}), added in commit ${f.commit.slice(0, 12)}.\n` +
      `Fingerprint: ${f.fingerprint}`,
  };
}

/** The summary within the platform's limit, saying so when it was cut. */
function fitted(markdown: string): string {
  if (markdown.length <= SUMMARY_LIMIT) return markdown;
  const note = '\n\n…the report is longer than a check run holds; run `svc scan` for all of it.\n';
  return markdown.slice(0, SUMMARY_LIMIT - note.length) + note;
}

/** The summary a check run gets when its scan could not run: the reason, never git's own words. */
export function failedCheckRun(reason: string): { conclusion: 'neutral'; output: CheckRunOutput } {
  return {
    conclusion: 'neutral',
    output: {
      title: 'The scan could not run',
      summary: `svc could not scan these commits: ${reason}. The next push or pull request update is scanned again.`,
    },
  };
}

/**
 * Sends the annotations 50 at a time, and completes the check run with the last request: a check run
 * the platform shows as completed already has every annotation.
 */
export async function publishCheckRun(
  api: AppApi,
  installationId: number,
  repo: RepositoryRef,
  checkRunId: number,
  result: CheckRunResult,
  signal?: AbortSignal,
): Promise<void> {
  const batches = result.annotationBatches.length === 0 ? [[]] : result.annotationBatches;
  for (const [i, annotations] of batches.entries()) {
    const last = i === batches.length - 1;
    const completion = last
      ? { status: 'completed', conclusion: result.conclusion, completed_at: new Date().toISOString() }
      : {};
    await api.updateCheckRun(
      installationId,
      repo,
      checkRunId,
      { ...completion, output: { ...result.output, annotations } },
      signal,
    );
  }
}
