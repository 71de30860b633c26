/**
 * The scanner's public data shapes. Everything here is safe to serialize: no field ever holds a
 * secret's full value (the value stays in memory, reachable only through `secretOf`, see secrets.ts).
 */

export const RULE_IDS = [
  'cloud-access-key-id',
  'codehost-token',
  'codehost-fine-grained-pat',
  'chat-token',
  'payment-live-key',
  'webapi-key',
  'private-key',
  'generic-secret',
] as const;
export type RuleId = (typeof RULE_IDS)[number];

/** Location classes, in the order the checks run. */
export const LOCATIONS = ['test', 'example', 'docs', 'code'] as const;
export type Location = (typeof LOCATIONS)[number];

/** A credential check's outcome. `unchecked` covers "no check made" and "check inconclusive". */
export type Verification = 'active' | 'revoked' | 'unchecked';

export interface Finding {
  ruleId: RuleId;
  /** Full 40 (or 64) hex commit id; null for a change not committed yet (svc scan --staged). */
  commit: string | null;
  path: string;
  line: number;
  location: Location;
  /** First four characters then asterisks; for `private-key` the key type. */
  maskedValue: string;
  verification: Verification;
  /** Why a finding is unchecked, when a check was attempted or is impossible (report detail). */
  verificationReason?: string;
  /** `<rule_id>:<commit_first_12>:<path>:<line>` */
  fingerprint: string;
  /** Listed in `.svcignore` on the default branch: reported, never fails the scan. */
  ignored: boolean;
  author: string;
  /** Author date, ISO 8601. */
  date: string;
}

export interface ScanSummary {
  total: number;
  /** Unignored findings located in code: the ones that fail the scan. */
  failing: number;
  ignored: number;
  byLocation: Record<Location, number>;
  active: number;
  revoked: number;
  unchecked: number;
}

export interface ScanResult {
  /** The path as the caller gave it. */
  repository: string;
  /** Short name of the branch `.svcignore` was read from, or null when there is none. */
  defaultBranch: string | null;
  commitsScanned: number;
  /** True when some commits could not be read (missing objects). */
  incomplete: boolean;
  unreadableCommits: string[];
  /** True when the repository is a shallow clone: history before the graft is not scanned. */
  shallow: boolean;
  /** True for `svc scan --staged`: the index's changes were scanned, not commits. */
  staged?: boolean;
  /** Whether credentials were checked (false: --no-verify, or a hook scan without --verify). */
  verified?: boolean;
  /**
   * The refs whose history holds each failing finding's commit, for the human reports (a secret on
   * an unmerged branch is public too); looked up only in repositories with few refs.
   */
  refsOfCommit?: ReadonlyMap<string, readonly string[]>;
  findings: Finding[];
  summary: ScanSummary;
  passed: boolean;
  /** When the scan started and finished, ISO 8601 (reports that carry times use them). */
  startedAt?: string;
  finishedAt?: string;
}

/** What a credential check decided for one finding; `reason` explains an `unchecked`. */
export interface VerificationResult {
  verification: Verification;
  reason?: string;
}

/**
 * Checks whether found credentials still work. The scanner only defines the seam: the
 * implementation lives above it (src/verify), and a caller that must never run checks (dashboard
 * scans) simply passes none. Given every finding and a way to read a finding's secret, it returns
 * the result for each finding it decided; findings it leaves out stay `unchecked`.
 */
export type FindingVerifier = (
  findings: readonly Finding[],
  secretOf: (finding: Finding) => string | undefined,
) => Promise<Map<Finding, VerificationResult>>;
