import { createHash } from 'node:crypto';
import { ignoreLineOf } from '../ignore-line.js';
import { isFailing } from '../summary.js';
import type { Finding, ScanResult } from '../types.js';
import { RULE_REMEDIATION, RULE_TITLES, shortCommit, sortFindings } from './common.js';

/**
 * GitLab's secret-detection report (schema 15), the `artifacts:reports:secret_detection` file that
 * puts findings in merge requests. Ignored findings are left out (accepted as false positives);
 * failing ones are Critical, the rest Low. Only masked values appear, as everywhere.
 */
export function renderGitlab(result: ScanResult, toolVersion: string): string {
  const tool = { id: 'svc', name: 'svc', version: toolVersion, vendor: { name: 'svc' } };
  const report = {
    version: '15.0.7',
    vulnerabilities: sortFindings(result.findings)
      .filter((f) => !f.ignored)
      .map((f) => vulnerability(f)),
    scan: {
      analyzer: tool,
      scanner: tool,
      type: 'secret_detection',
      start_time: gitlabTime(result.startedAt),
      end_time: gitlabTime(result.finishedAt),
      status: 'success',
      messages: result.incomplete
        ? [
            {
              level: 'warn',
              value: `${result.unreadableCommits.length} commits could not be read (missing objects)`,
            },
          ]
        : [],
    },
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

function vulnerability(f: Finding) {
  const status = f.verification === 'active' ? ' It is ACTIVE: the provider accepted it.' : '';
  return {
    // A stable id per finding, so GitLab tracks the same finding across pipelines.
    id: uuidFrom(f.fingerprint),
    name: RULE_TITLES[f.ruleId],
    description:
      `${RULE_TITLES[f.ruleId]} (${f.maskedValue}) ${f.commit === null ? 'staged, not committed yet' : `committed in ${shortCommit(f.commit)}`}, location class ` +
      `${f.location}.${status} To accept it, add this line to .svcignore on the default branch: ${ignoreLineOf(f.fingerprint)}`,
    severity: isFailing(f) ? 'Critical' : 'Low',
    location: {
      file: f.path,
      start_line: f.line,
      end_line: f.line,
      ...(f.commit === null ? {} : { commit: { sha: f.commit, author: f.author, date: f.date } }),
    },
    solution: RULE_REMEDIATION[f.ruleId],
    identifiers: [{ type: 'svc_rule_id', name: `svc ${f.ruleId}`, value: f.ruleId }],
  };
}

function uuidFrom(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** GitLab's report times: `YYYY-MM-DDTHH:MM:SS`, UTC, no zone. */
function gitlabTime(iso: string | undefined): string {
  return (iso ?? '1970-01-01T00:00:00.000Z').slice(0, 19);
}
