import { escapeUnprintable } from '../ignore-line.js';
import { RULES } from '../rules/index.js';
import { isFailing } from '../summary.js';
import type { Finding, Location, RuleId, ScanResult } from '../types.js';

export { isFailing };

/** Each rule's display title, as its rule file spells it. */
export const RULE_TITLES: Readonly<Record<RuleId, string>> = Object.freeze(
  Object.fromEntries(RULES.map((rule) => [rule.id, rule.title])) as Record<RuleId, string>,
);

/** Report order of location classes: the failing class first (not the detection order of types.ts). */
export const LOCATION_ORDER: readonly Location[] = ['code', 'test', 'example', 'docs'];

// Code-unit comparison, not localeCompare: the order must not depend on the machine's locale.
function cmp(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** What to do about a finding of each rule, as its rule file says (at the provider, with its page). */
export const RULE_REMEDIATION: Readonly<Record<RuleId, string>> = Object.freeze(
  Object.fromEntries(RULES.map((rule) => [rule.id, rule.remediation])) as Record<RuleId, string>,
);

/**
 * The one ordering every format uses: failing, then location class, then ACTIVE credentials (still
 * working: the first to rotate), then path, line, rule, commit.
 */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  const active = (f: Finding) => Number(f.verification === 'active');
  return [...findings].sort(
    (a, b) =>
      Number(isFailing(b)) - Number(isFailing(a)) ||
      LOCATION_ORDER.indexOf(a.location) - LOCATION_ORDER.indexOf(b.location) ||
      active(b) - active(a) ||
      cmp(a.path, b.path) ||
      a.line - b.line ||
      cmp(a.ruleId, b.ruleId) ||
      cmp(a.commit ?? '', b.commit ?? ''),
  );
}

/** The three sections of the human reports, each already in report order. */
export interface Sections {
  failing: Finding[];
  ignoredCode: Finding[];
  other: Finding[];
}

export function sections(findings: readonly Finding[]): Sections {
  const sorted = sortFindings(findings);
  return {
    failing: sorted.filter(isFailing),
    ignoredCode: sorted.filter((f) => f.location === 'code' && f.ignored),
    other: sorted.filter((f) => f.location !== 'code'),
  };
}

export type Verdict = 'fail' | 'incomplete' | 'pass';

/**
 * Human reports derive the verdict from the findings (a failing finding in code fails) and call out an incomplete scan
 * separately, matching exit code 3: "nothing failed" is not "everything was read".
 */
export function verdictOf(result: ScanResult): Verdict {
  if (result.findings.some(isFailing)) return 'fail';
  return result.incomplete ? 'incomplete' : 'pass';
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What a scan read, for the reports' headers: "120 commits scanned", or the staged changes. */
export function scannedWhat(result: ScanResult): string {
  return result.staged === true
    ? 'staged changes scanned'
    : `${plural(result.commitsScanned, 'commit')} scanned`;
}

/** Whether a scan had nothing to read: a history scan of a repository with no commits. */
export function readNothing(result: ScanResult): boolean {
  return result.staged !== true && result.commitsScanned === 0 && !result.incomplete;
}

/** Where a finding's commit is, for the human reports: "on main, v2.1 and 3 more refs", or "". */
export function refsText(result: ScanResult, f: Finding): string {
  const refs = f.commit === null ? undefined : result.refsOfCommit?.get(f.commit);
  if (refs === undefined || refs.length === 0) return '';
  const shown = refs.slice(0, 5).map(visible).join(', ');
  return refs.length > 5 ? ` on ${shown} and ${plural(refs.length - 5, 'more ref')}` : ` on ${shown}`;
}

/** The commit's first 12 characters, or `staged` for a change not committed yet. */
export function shortCommit(commit: string | null): string {
  return commit === null ? 'staged' : commit.slice(0, 12);
}

/** The author's own calendar date: the ISO string's date part, no time-zone conversion. */
export function dayOf(iso: string): string {
  return /^\d{4}-\d{2}-\d{2}/.test(iso) ? iso.slice(0, 10) : iso;
}

/** `ACTIVE`, `(revoked)` or `unchecked` (with the reason when there is one). */
export function statusLabel(f: Finding): string {
  if (f.verification === 'active') return 'ACTIVE';
  if (f.verification === 'revoked') return '(revoked)';
  return f.verificationReason ? `unchecked: ${f.verificationReason}` : 'unchecked';
}

/**
 * Paths, author names and reasons come from the scanned repository, i.e. from anyone. Control and
 * bidirectional-override characters are shown as visible escapes so they can neither drive the
 * terminal nor break a table row nor reorder what a reviewer reads.
 */
export function visible(s: string): string {
  return escapeUnprintable(s);
}

export function countByLocation(findings: readonly Finding[]): string {
  return LOCATION_ORDER.filter((loc) => loc !== 'code')
    .map((loc) => [loc, findings.filter((f) => f.location === loc).length] as const)
    .filter(([, n]) => n > 0)
    .map(([loc, n]) => `${n} in ${loc}`)
    .join(', ');
}

/**
 * The one-line verdict shared by text and markdown, e.g.
 * `FAIL: 2 failing findings in code (5 total: 1 ignored, 2 in other locations); 1 active credential`.
 */
export function summaryLine(result: ScanResult): string {
  const { failing, ignoredCode, other } = sections(result.findings);
  const total = result.findings.length;
  const active = result.findings.filter((f) => f.verification === 'active').length;
  const parts = (
    [
      [ignoredCode.length, 'ignored'],
      [other.length, 'in other locations'],
    ] as const
  ).filter(([n]) => n > 0);
  let detail = '';
  if (failing.length === 0 && parts.length === 1) detail = ` (${total} total ${parts[0]![1]})`;
  else if (parts.length > 0) detail = ` (${total} total: ${parts.map(([n, s]) => `${n} ${s}`).join(', ')})`;
  // Without checks nothing is known to be active: say so, rather than "0 active".
  const activeText =
    result.verified === false ? '; credentials not checked' : `; ${plural(active, 'active credential')}`;
  const unread = plural(result.unreadableCommits.length, 'commit');
  switch (verdictOf(result)) {
    case 'fail':
      return `FAIL: ${plural(failing.length, 'failing finding')} in code${detail}${activeText}`;
    case 'incomplete':
      return `INCOMPLETE: no failing findings in the commits read${detail}${activeText}; ${unread} could not be read`;
    default:
      return `PASS: ${total === 0 ? 'no findings' : `no failing findings${detail}`}${activeText}`;
  }
}

/** How many unreadable commits the human reports list before "and N more" (JSON and SARIF list all). */
export const MAX_LISTED_COMMITS = 20;

export function listedCommits(commits: readonly string[]): { shown: string[]; more: number } {
  return {
    shown: commits.slice(0, MAX_LISTED_COMMITS),
    more: Math.max(0, commits.length - MAX_LISTED_COMMITS),
  };
}

export const SHALLOW_WARNING =
  'Shallow clone: history before the shallow boundary was not scanned (fetch with --unshallow for a full scan)';

export const IGNORE_HINT =
  'To accept a finding as a false positive, add its ignore line to .svcignore on the default branch.';
