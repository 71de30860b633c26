import type { ScanRecord } from '../storage/index.js';

/**
 * A scan as the API (`GET /api/scans/{id}`, the list) and the MCP tools show it: an allowlist of
 * fields, masked values and fingerprints only (the stored findings never held more).
 */
export function presentScan(scan: Omit<ScanRecord, 'findings'> & { findings?: unknown[] | null }) {
  return {
    id: scan.id,
    url: scan.url,
    status: scan.status,
    progress: { done: scan.progress.done, total: scan.progress.total },
    createdAt: scan.createdAt.toISOString(),
    startedAt: scan.startedAt?.toISOString() ?? null,
    finishedAt: scan.finishedAt?.toISOString() ?? null,
    error: scan.error,
    summary: scan.summary as Record<string, unknown> | null,
    ...(scan.findings === undefined ? {} : { findings: scan.findings as Record<string, unknown>[] | null }),
  };
}

/** A list's entry: the scan without its findings. */
export function presentScanSummary(scan: ScanRecord) {
  const { findings: _, ...rest } = scan;
  return presentScan(rest);
}
