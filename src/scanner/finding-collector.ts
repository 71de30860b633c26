import { detectSecrets } from './detect/detect-line.js';
import { fingerprintOf } from './fingerprint.js';
import { classifyPath } from './location.js';
import { sortFindings } from './report/common.js';
import { attachSecret, secretOf } from './secrets.js';
import type { AddedLineSink, CommitInfo } from './sources/diff-parser.js';
import { summarize } from './summary.js';
import type { Finding, FindingVerifier, ScanResult } from './types.js';

/**
 * Turns the candidate lines a source hands on into findings, one per fingerprint: the rules, the
 * location class, the ignore list, the secret kept beside the finding in memory (secrets.ts). Every
 * kind of scan shares it: the history, a range of it, the staged changes.
 */
export class FindingCollector implements AddedLineSink {
  readonly findings = new Map<string, Finding>();

  constructor(
    private readonly options: {
      ignoreList: ReadonlySet<string>;
      /** The commit a finding is in: the header's id, or null for changes not committed yet. */
      commitOf: (commit: CommitInfo) => string | null;
      /** Whether to keep a finding (a cached re-scan keeps only what it recorded); default: all. */
      accepts?: (commit: string | null, fingerprint: string) => boolean;
    },
  ) {}

  onCandidateLine(info: CommitInfo, path: string, line: number, text: string): void {
    const commit = this.options.commitOf(info);
    for (const match of detectSecrets(text)) {
      const fingerprint = fingerprintOf(match.ruleId, commit, path, line);
      if (this.findings.has(fingerprint) || this.options.accepts?.(commit, fingerprint) === false) continue;
      const finding: Finding = {
        ruleId: match.ruleId,
        commit,
        path,
        line,
        location: classifyPath(path),
        maskedValue: match.maskedValue,
        verification: 'unchecked',
        fingerprint,
        ignored: this.options.ignoreList.has(fingerprint),
        author: info.author,
        date: info.date,
      };
      attachSecret(finding, match.secret);
      this.findings.set(fingerprint, finding);
    }
  }

  /**
   * The findings in one order whatever the reading order (so the credential checks, at most 25, pick
   * the same ones), checked when `verify` is given, and their summary.
   */
  async finish(
    verify: FindingVerifier | undefined,
  ): Promise<Pick<ScanResult, 'findings' | 'summary' | 'passed' | 'verified'>> {
    const list = sortFindings([...this.findings.values()]);
    if (verify !== undefined) {
      for (const [finding, result] of await verify(list, secretOf)) {
        finding.verification = result.verification;
        if (result.reason !== undefined) finding.verificationReason = result.reason;
      }
    }
    const summary = summarize(list);
    return { findings: list, summary, passed: summary.failing === 0, verified: verify !== undefined };
  }
}
