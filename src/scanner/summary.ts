import type { Finding, ScanSummary } from './types.js';

/** A finding fails the scan when it is in code and not listed in `.svcignore`. */
export function isFailing(finding: Finding): boolean {
  return finding.location === 'code' && !finding.ignored;
}

/** The JSON report's summary counts; recomputed whenever verification statuses change. */
export function summarize(findings: readonly Finding[]): ScanSummary {
  const summary: ScanSummary = {
    total: findings.length,
    failing: 0,
    ignored: 0,
    byLocation: { code: 0, test: 0, example: 0, docs: 0 },
    active: 0,
    revoked: 0,
    unchecked: 0,
  };
  for (const f of findings) {
    if (isFailing(f)) summary.failing++;
    if (f.ignored) summary.ignored++;
    summary.byLocation[f.location]++;
    summary[f.verification]++;
  }
  return summary;
}
