import { ignoreLineOf } from '../ignore-line.js';
import type { Finding, ScanResult } from '../types.js';
import {
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

const HEADINGS = { fail: '❌ failed', incomplete: '⚠️ incomplete', pass: '✅ passed' } as const;

/** GitHub-flavoured markdown for a CI job summary or a pull-request comment. */
export function renderMarkdown(result: ScanResult, toolVersion: string): string {
  const { failing, ignoredCode, other } = sections(result.findings);
  const rest = [...ignoredCode, ...other];
  const branch =
    result.defaultBranch === null ? 'no default branch' : `default branch ${code(result.defaultBranch)}`;
  const out: string[] = [
    `## svc secret scan: ${HEADINGS[verdictOf(result)]}`,
    '',
    `**${summaryLine(result)}**`,
    '',
    `Repository ${code(result.repository)}: ${scannedWhat(result)}, ${branch} · svc ${toolVersion}`,
  ];

  if (failing.length > 0) {
    out.push(
      '',
      '### Failing findings in code',
      '',
      ...table(failing, false, result),
      '',
      ...whatToDo(failing),
    );
  } else if (!readNothing(result)) {
    out.push('', 'No failing findings in code.');
  } else {
    out.push('', 'Nothing to scan: the repository has no commits.');
  }
  if (rest.length > 0) {
    out.push(
      '',
      `<details><summary>Other locations (${plural(rest.length, 'finding')}, not failing)</summary>`,
      // GitHub renders markdown inside <details> only after a blank line.
      '',
      ...table(rest, true),
      '',
      '</details>',
    );
  }
  out.push(...warnings(result));
  if (result.findings.length > 0) out.push('', IGNORE_HINT.replace('.svcignore', '`.svcignore`'));
  return `${out.join('\n')}\n`;
}

/**
 * What to do, once per rule among the failing findings: rotate at the provider (deleting the line
 * from the code leaves the secret in history, public since its first push).
 */
function whatToDo(failing: readonly Finding[]): string[] {
  const rules = [...new Set(failing.map((f) => f.ruleId))];
  return [
    '**What to do:** revoke or rotate each credential at its provider; removing it from the code does not ' +
      'take it out of history.',
    '',
    ...rules.map((id) => `- ${RULE_TITLES[id]}: ${RULE_REMEDIATION[id]}`),
  ];
}

function table(findings: readonly Finding[], withLocation: boolean, result?: ScanResult): string[] {
  const head = ['Rule', 'File', 'Line', 'Commit', 'Secret', 'Status', 'Ignore line'];
  if (withLocation) head.unshift('Location');
  const rows = findings.map((f) => {
    const cells = [
      RULE_TITLES[f.ruleId],
      code(f.path),
      String(f.line),
      code(shortCommit(f.commit)) + (result === undefined ? '' : text(refsText(result, f))),
      code(f.maskedValue),
      statusCell(f),
      code(ignoreLineOf(f.fingerprint)),
    ];
    if (withLocation) cells.unshift(f.location);
    return `| ${cells.join(' | ')} |`;
  });
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows];
}

function statusCell(f: Finding): string {
  const label = f.verification === 'active' ? '**ACTIVE**' : text(statusLabel(f));
  return f.ignored ? `${label}, ignored` : label;
}

function warnings(result: ScanResult): string[] {
  const out: string[] = [];
  if (result.incomplete) {
    const { shown, more } = listedCommits(result.unreadableCommits);
    const n = plural(result.unreadableCommits.length, 'commit');
    out.push(
      '',
      '> [!WARNING]',
      `> Scan incomplete: ${n} could not be read (missing objects); their lines were not scanned:`,
      ...shown.map((c) => `> - ${code(c)}`),
    );
    if (more > 0) out.push(`> - … and ${more} more`);
  }
  if (result.shallow) out.push('', '> [!WARNING]', `> ${text(SHALLOW_WARNING)}`);
  return out;
}

/**
 * Repository strings (paths, masked values) go in code spans: no emphasis, link, HTML, math or
 * @mention can form inside one. Only `|` still needs its backslash, because GFM splits table cells
 * before it parses code spans; the fence grows past any backtick run in the value.
 */
function code(raw: string): string {
  const s = visible(raw).replace(/\|/g, '\\|');
  const longest = Math.max(0, ...(s.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = s.startsWith('`') || s.endsWith('`') || (s.startsWith(' ') && s.endsWith(' ')) ? ' ' : '';
  return `${fence}${pad}${s}${pad}${fence}`;
}

/** Plain text mid-line (a check's reason): the characters that can start inline markup, escaped. */
function text(raw: string): string {
  return visible(raw).replace(/[\\`*_[\]<>|~$&]/g, '\\$&');
}
