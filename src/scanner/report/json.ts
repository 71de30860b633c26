import type { Finding, ScanResult } from '../types.js';
import { sortFindings } from './common.js';

/**
 * The JSON report, version 1. Every object is rebuilt field by field (never spread) so the key order
 * is the one the golden reports pin (test/fixtures/golden) and nothing outside it leaks out: not `shallow`, not `verificationReason`, and not
 * any stray property a caller may have attached to a finding.
 */
export function renderJson(result: ScanResult, toolVersion: string): string {
  const { summary } = result;
  const report = {
    version: 1,
    tool: { name: 'svc', version: toolVersion },
    repository: result.repository,
    defaultBranch: result.defaultBranch,
    commitsScanned: result.commitsScanned,
    incomplete: result.incomplete,
    unreadableCommits: [...result.unreadableCommits],
    findings: sortFindings(result.findings).map(findingJson),
    summary: {
      total: summary.total,
      failing: summary.failing,
      ignored: summary.ignored,
      byLocation: {
        code: summary.byLocation.code,
        test: summary.byLocation.test,
        example: summary.byLocation.example,
        docs: summary.byLocation.docs,
      },
      active: summary.active,
      revoked: summary.revoked,
      unchecked: summary.unchecked,
    },
    passed: result.passed,
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

function findingJson(f: Finding) {
  return {
    ruleId: f.ruleId,
    commit: f.commit,
    path: f.path,
    line: f.line,
    location: f.location,
    maskedValue: f.maskedValue,
    verification: f.verification,
    fingerprint: f.fingerprint,
    ignored: f.ignored,
    author: f.author,
    date: f.date,
  };
}
