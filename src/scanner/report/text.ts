import { ignoreLineOf } from '../ignore-line.js';
import type { Finding, ScanResult } from '../types.js';
import {
  countByLocation,
  dayOf,
  IGNORE_HINT,
  listedCommits,
  plural,
  RULE_REMEDIATION,
  RULE_TITLES,
  readNothing,
  refsText,
  SHALLOW_WARNING,
  scannedWhat,
  sections,
  shortCommit,
  statusLabel,
  summaryLine,
  verdictOf,
  visible,
} from './common.js';

const ANSI = { red: '1;31', green: '1;32', yellow: '33', bold: '1', dim: '2' } as const;
type Paint = (style: keyof typeof ANSI, s: string) => string;

export interface TextOptions {
  toolVersion: string;
  color: boolean;
}

/** The terminal report: failing findings in full, the rest one line each, the verdict last. */
export function renderText(result: ScanResult, options: TextOptions): string {
  // Without color not a single escape byte is written: the output may be a log file or a pipe.
  const paint: Paint = (style, s) => (options.color ? `\x1b[${ANSI[style]}m${s}\x1b[0m` : s);
  const { failing, ignoredCode, other } = sections(result.findings);
  const out: string[] = [header(result, options.toolVersion, paint)];

  if (readNothing(result)) out.push('', 'Nothing to scan: the repository has no commits.');
  if (failing.length > 0) {
    out.push('', paint('bold', `Failing findings in code: ${failing.length}`));
    for (const f of failing) out.push('', ...block(f, paint, result));
  }
  if (ignoredCode.length > 0) {
    out.push('', paint('bold', `Ignored findings in code (listed in .svcignore): ${ignoredCode.length}`));
    for (const f of ignoredCode) out.push('', ...block(f, paint, result));
  }
  if (other.length > 0) {
    out.push('', paint('bold', `Other locations (not failing): ${countByLocation(other)}`));
    for (const f of other) out.push(otherLine(f, paint));
  }
  const warnings = warningLines(result, paint);
  if (warnings.length > 0) out.push('', ...warnings);
  if (result.findings.length > 0) out.push('', paint('dim', IGNORE_HINT));
  out.push('', verdictLine(result, paint));
  return `${out.join('\n')}\n`;
}

function header(result: ScanResult, toolVersion: string, paint: Paint): string {
  const branch =
    result.defaultBranch === null ? 'no default branch' : `default branch ${visible(result.defaultBranch)}`;
  return `${paint('bold', `svc ${toolVersion}`)} | repository ${visible(result.repository)} | ${scannedWhat(result)} | ${branch}`;
}

function status(f: Finding, paint: Paint): string {
  const label = statusLabel(f);
  if (f.verification === 'active') return paint('red', label);
  return f.verification === 'unchecked' ? paint('dim', label) : label;
}

/** A failing or ignored code finding: everything needed to triage it without another command. */
function block(f: Finding, paint: Paint, result: ScanResult): string[] {
  const ignored = f.ignored ? `  ${paint('dim', 'ignored')}` : '';
  return [
    `  ${paint('bold', RULE_TITLES[f.ruleId])} (${f.ruleId})  ${status(f, paint)}${ignored}`,
    `    ${visible(f.path)}:${f.line}`,
    paint(
      'dim',
      `    ${f.commit === null ? 'staged, not committed yet' : `commit ${shortCommit(f.commit)}${refsText(result, f)}`} by ${visible(f.author)} on ${dayOf(f.date)}`,
    ),
    `    secret ${visible(f.maskedValue)}`,
    `    what to do: ${RULE_REMEDIATION[f.ruleId]}`,
    `    ignore: ${ignoreLineOf(f.fingerprint)}`,
  ];
}

/** Non-failing findings stay on one line each; "unchecked" is left out there to keep it short. */
function otherLine(f: Finding, paint: Paint): string {
  const marks = [
    f.verification === 'unchecked' ? '' : `  ${status(f, paint)}`,
    f.ignored ? `  ${paint('dim', 'ignored')}` : '',
  ].join('');
  const where = `[${f.location}] ${visible(f.path)}:${f.line}`;
  return `  ${where}  ${f.ruleId}  ${visible(f.maskedValue)}${marks}  ${paint('dim', `ignore: ${ignoreLineOf(f.fingerprint)}`)}`;
}

function warningLines(result: ScanResult, paint: Paint): string[] {
  const lines: string[] = [];
  if (result.incomplete) {
    const { shown, more } = listedCommits(result.unreadableCommits);
    const n = plural(result.unreadableCommits.length, 'commit');
    lines.push(
      paint(
        'yellow',
        `WARNING: Scan incomplete: ${n} could not be read (missing objects); their lines were not scanned:`,
      ),
    );
    lines.push(...shown.map((c) => `  ${visible(c)}`));
    if (more > 0) lines.push(`  ... and ${more} more`);
  }
  if (result.shallow) lines.push(paint('yellow', `WARNING: ${SHALLOW_WARNING}`));
  return lines;
}

function verdictLine(result: ScanResult, paint: Paint): string {
  const line = summaryLine(result);
  const cut = line.indexOf(':');
  const style = { fail: 'red', incomplete: 'yellow', pass: 'green' } as const;
  return paint(style[verdictOf(result)], line.slice(0, cut)) + line.slice(cut);
}
