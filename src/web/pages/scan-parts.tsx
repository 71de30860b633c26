import type { ScanSummary } from '../../scanner/index.js';
import type { ScanRecord, ScanStatus } from '../../storage/index.js';

const STATUS_WORDS: Record<ScanStatus, string> = {
  queued: 'queued',
  running: 'running',
  done: 'done',
  failed: 'failed',
  canceled: 'canceled',
};
const STATUS_CLASSES: Record<ScanStatus, string> = {
  queued: 'ask',
  running: 'ask',
  done: 'allow',
  failed: 'deny',
  canceled: 'ask',
};

/**
 * A scan's state at a glance. A finished scan is judged as CI would judge it: green "passed" only when
 * no finding fails (none in code, unignored); red "secrets found" otherwise, never a green "done".
 */
export function ScanStatusBadge(props: { status: ScanStatus; summary: ScanSummary | null }) {
  if (props.status === 'done' && props.summary !== null) {
    return props.summary.failing > 0 ? (
      <span class="badge deny">secrets found</span>
    ) : (
      <span class="badge allow">passed</span>
    );
  }
  return <span class={`badge ${STATUS_CLASSES[props.status]}`}>{STATUS_WORDS[props.status]}</span>;
}

/** `https://github.com/octo/app` as `github.com/octo/app`: the scheme says nothing on a page. */
export function shortUrl(url: string): string {
  return url.replace(/^https?:\/\//, '');
}

/** One line on how a scan went: its findings once done, its reason when failed, its progress else. */
export function scanResultText(scan: ScanRecord, summary: ScanSummary | null): string {
  if (scan.status === 'failed') return scan.error ?? 'failed';
  if (scan.status === 'done' && summary !== null) {
    if (summary.total === 0) return 'no findings';
    return `${summary.failing} failing in code · ${summary.total} in all`;
  }
  if (scan.status === 'running' && scan.progress.total > 0) {
    return `${scan.progress.done} of ${scan.progress.total} commits`;
  }
  return scan.status === 'running' ? 'cloning' : '';
}
