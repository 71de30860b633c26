/**
 * The ScanResults the report goldens in this folder are rendered from (src/scanner/report/*.test.ts).
 * Every maskedValue is already masked: no raw secret exists in this file.
 */
import type { Finding, Location, ScanResult, ScanSummary } from '../../src/scanner/types.js';

export const TOOL_VERSION = '0.1.0';

const C1 = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const C2 = '0123456789abcdef0123456789abcdef01234567';
const C3 = 'fedcba9876543210fedcba9876543210fedcba98';

type FindingInput = Pick<Finding, 'ruleId' | 'path' | 'line' | 'location' | 'maskedValue'> & Partial<Finding>;

/** A finding with a consistent fingerprint; unchecked, unignored, by Alice unless told otherwise. */
export function finding(input: FindingInput): Finding {
  const commit = input.commit ?? C1;
  return {
    commit,
    verification: 'unchecked',
    ignored: false,
    author: 'Alice Example',
    date: '2024-03-01T09:15:00+01:00',
    fingerprint: `${input.ruleId}:${commit.slice(0, 12)}:${input.path}:${input.line}`,
    ...input,
  };
}

export function summarize(findings: readonly Finding[]): ScanSummary {
  const count = (p: (f: Finding) => boolean) => findings.filter(p).length;
  const byLocation = (loc: Location) => count((f) => f.location === loc);
  return {
    total: findings.length,
    failing: count((f) => f.location === 'code' && !f.ignored),
    ignored: count((f) => f.ignored),
    byLocation: {
      test: byLocation('test'),
      example: byLocation('example'),
      docs: byLocation('docs'),
      code: byLocation('code'),
    },
    active: count((f) => f.verification === 'active'),
    revoked: count((f) => f.verification === 'revoked'),
    unchecked: count((f) => f.verification === 'unchecked'),
  };
}

/** A result whose summary and verdict agree with its findings, as the scanner's would. */
export function scanResult(input: Partial<ScanResult> & Pick<ScanResult, 'findings'>): ScanResult {
  const summary = summarize(input.findings);
  return {
    repository: './acme-api',
    defaultBranch: 'main',
    commitsScanned: 42,
    incomplete: false,
    unreadableCommits: [],
    shallow: false,
    summary,
    passed: summary.failing === 0,
    ...input,
  };
}

/** Every section of every report at once, given in scrambled order to exercise the sorting. */
export function fullResult(): ScanResult {
  return scanResult({
    incomplete: true,
    unreadableCommits: [
      'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef',
      'cafebabecafebabecafebabecafebabecafebabe',
    ],
    findings: [
      finding({
        ruleId: 'private-key',
        path: 'docs/setup.md',
        line: 30,
        location: 'docs',
        maskedValue: 'RSA',
      }),
      finding({
        ruleId: 'chat-token',
        path: 'scripts/notify.sh',
        line: 3,
        location: 'code',
        maskedValue: 'xoxb****************',
        ignored: true,
        verificationReason: 'rate limited',
        commit: C3,
      }),
      finding({
        ruleId: 'codehost-token',
        path: 'tests/test_api.py',
        line: 4,
        location: 'test',
        maskedValue: 'ghp_****************',
        verification: 'active',
        commit: C2,
      }),
      finding({
        ruleId: 'payment-live-key',
        path: 'src/billing/charge.ts',
        line: 8,
        location: 'code',
        maskedValue: 'sk_l****************',
        verification: 'revoked',
        author: 'Bob Builder',
        date: '2023-12-31T23:59:59-08:00',
        commit: C2,
      }),
      finding({
        ruleId: 'webapi-key',
        path: 'deploy/my app|ünïcode_*<v2>.yml',
        line: 11,
        location: 'code',
        maskedValue: 'AIza****************',
        commit: C3,
      }),
      finding({
        ruleId: 'codehost-token',
        path: 'src/client.ts',
        line: 14,
        location: 'code',
        maskedValue: 'ghp_****************',
        verification: 'active',
      }),
      finding({
        ruleId: 'cloud-access-key-id',
        path: 'config/deploy.env',
        line: 2,
        location: 'code',
        maskedValue: 'AKIA****************',
        verificationReason: 'no check exists for this rule',
      }),
      finding({
        ruleId: 'generic-secret',
        path: 'src/__tests__/auth.test.ts',
        line: 7,
        location: 'test',
        maskedValue: 's3cR****************',
        ignored: true,
      }),
      finding({
        ruleId: 'chat-token',
        path: 'examples/bot.py',
        line: 12,
        location: 'example',
        maskedValue: 'xoxp****************',
        verification: 'revoked',
        commit: C3,
      }),
    ],
  });
}

/** Passing, but not empty: findings only outside code, on a shallow clone. */
export function passingResult(): ScanResult {
  return scanResult({
    repository: '/home/ci/work/acme-web',
    commitsScanned: 7,
    shallow: true,
    findings: [
      finding({
        ruleId: 'webapi-key',
        path: 'README.md',
        line: 40,
        location: 'docs',
        maskedValue: 'AIza****************',
      }),
      finding({
        ruleId: 'cloud-access-key-id',
        path: 'test/aws.test.js',
        line: 3,
        location: 'test',
        maskedValue: 'AKIA****************',
      }),
      finding({
        ruleId: 'payment-live-key',
        path: 'test/billing.test.js',
        line: 9,
        location: 'test',
        maskedValue: 'rk_l****************',
        verification: 'revoked',
      }),
    ],
  });
}

/** A repository without a single commit (and so without a default branch). */
export function emptyResult(): ScanResult {
  return scanResult({ repository: '.', defaultBranch: null, commitsScanned: 0, findings: [] });
}

/** The JSON report's top-level keys, in order (as src/scanner/report/json.ts writes them). */
export const CONTRACT_REPORT_KEYS = [
  'version',
  'tool',
  'repository',
  'defaultBranch',
  'commitsScanned',
  'incomplete',
  'unreadableCommits',
  'findings',
  'summary',
  'passed',
];

/** A JSON report finding's keys, in order (the dashboard's stored findings are the same). */
export const CONTRACT_FINDING_KEYS = [
  'ruleId',
  'commit',
  'path',
  'line',
  'location',
  'maskedValue',
  'verification',
  'fingerprint',
  'ignored',
  'author',
  'date',
];
