import { FINDING_HELP, ruleById } from '../rules/index.js';
import { type Finding, RULE_IDS, type RuleId, type ScanResult } from '../types.js';
import {
  isFailing,
  listedCommits,
  RULE_TITLES,
  SHALLOW_WARNING,
  sortFindings,
  statusLabel,
} from './common.js';

const INFORMATION_URI = 'https://github.com/svc-security/svc';

/** SARIF 2.1.0 for GitHub code scanning and other SARIF viewers: one run, one result per finding. */
export function renderSarif(result: ScanResult, toolVersion: string): string {
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'svc',
            version: toolVersion,
            semanticVersion: toolVersion,
            informationUri: INFORMATION_URI,
            rules: RULE_IDS.map(ruleDescriptor),
          },
        },
        invocations: [invocation(result)],
        results: sortFindings(result.findings).map(resultOf),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

/** The rule's own words (its file under rules/), as a SARIF reporting descriptor. */
function ruleDescriptor(id: RuleId) {
  const rule = ruleById(id)!;
  return {
    id,
    // SARIF wants a name that reads as an identifier, distinct from the id: cloud-access-key-id → CloudAccessKeyId.
    name: id.replace(/(^|-)([a-z])/g, (_m, _sep, c: string) => c.toUpperCase()),
    shortDescription: { text: rule.title },
    fullDescription: { text: rule.description },
    help: { text: `${rule.remediation} ${FINDING_HELP}` },
    defaultConfiguration: { level: 'error' },
    properties: { tags: ['security', 'secret'] },
  };
}

function levelOf(f: Finding): 'error' | 'warning' | 'note' {
  if (f.ignored) return 'note';
  return isFailing(f) ? 'error' : 'warning';
}

function resultOf(f: Finding) {
  const ignored = f.ignored ? ', ignored (listed in .svcignore)' : '';
  return {
    ruleId: f.ruleId,
    ruleIndex: RULE_IDS.indexOf(f.ruleId),
    level: levelOf(f),
    message: {
      text: `${RULE_TITLES[f.ruleId]}: ${f.maskedValue} (${statusLabel(f)}), in ${f.location}${ignored}. Ignore line: ${f.fingerprint}`,
    },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: pathToUri(f.path), uriBaseId: '%SRCROOT%' },
          region: { startLine: f.line },
        },
      },
    ],
    // GitHub code scanning matches alerts across uploads on these; the fingerprint is already stable.
    partialFingerprints: { 'svc/v1': f.fingerprint },
    ...(f.ignored ? { suppressions: [{ kind: 'external', justification: 'listed in .svcignore' }] } : {}),
    properties: {
      commit: f.commit,
      location: f.location,
      verification: f.verification,
      maskedValue: f.maskedValue,
      author: f.author,
      date: f.date,
      ignored: f.ignored,
    },
  };
}

/**
 * A relative URI reference (RFC 3986): each segment percent-encoded as UTF-8, so spaces, `%`, `#`,
 * `?` and Unicode survive, and a first segment with `:` cannot be read as a scheme. Lone surrogates
 * (not valid UTF-8, and encodeURIComponent throws on them) become U+FFFD.
 */
export function pathToUri(path: string): string {
  const wellFormed = path.replace(
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    '\ufffd',
  );
  return wellFormed.split('/').map(encodeURIComponent).join('/');
}

/** The scan ran to its end even when incomplete; what it could not read is a notification. */
function invocation(result: ScanResult) {
  const list: object[] = [];
  if (result.incomplete) {
    const n = result.unreadableCommits.length;
    const { shown, more } = listedCommits(result.unreadableCommits);
    list.push({
      descriptor: { id: 'unreadable-commits' },
      level: 'warning',
      message: {
        text:
          `Scan incomplete: ${n} commit${n === 1 ? '' : 's'} could not be read (missing objects); ` +
          `their lines were not scanned: ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`,
      },
      properties: { unreadableCommits: [...result.unreadableCommits] },
    });
  }
  if (result.shallow) {
    list.push({ descriptor: { id: 'shallow-clone' }, level: 'warning', message: { text: SHALLOW_WARNING } });
  }
  return list.length > 0
    ? { executionSuccessful: true, toolExecutionNotifications: list }
    : { executionSuccessful: true };
}
