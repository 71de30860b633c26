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

const RULE_DESCRIPTIONS: Readonly<Record<RuleId, string>> = {
  'cloud-access-key-id':
    'A cloud provider access key ID: AKIA or ASIA followed by 16 uppercase letters or digits. ' +
    'It cannot be checked without the secret half of the key pair, so it is always unchecked.',
  'codehost-token': 'A platform A token: ghp_, gho_, ghu_, ghs_ or ghr_ followed by 36 characters.',
  'codehost-fine-grained-pat':
    'A platform A fine-grained personal access token: codehost_pat_ followed by 82 characters.',
  'chat-token':
    'A chat provider token: xoxb-, xoxa-, xoxp-, xoxr- or xoxs- followed by at least 10 characters.',
  'payment-live-key':
    'A payment provider live secret or restricted key: sk_live_ or rk_live_ followed by at least 24 characters.',
  'webapi-key': 'A web API provider key: AIza followed by 35 characters.',
  'private-key':
    'A private key block: a -----BEGIN ... PRIVATE KEY----- header whose key type is RSA, EC, DSA, ' +
    'OPENSSH, PGP or absent. The masked value is the key type.',
  'generic-secret':
    'A quoted value of 16 or more characters, with a Shannon entropy of at least 3.5 bits per character, ' +
    'assigned to a name containing secret, token, password, passwd, api_key or access_key.',
};

const HELP =
  'A secret committed to git stays in the history after it is deleted from the files: revoke or rotate ' +
  'the credential at its provider, then remove it from the code. Only findings in code fail the scan. ' +
  'If the finding is a false positive, add its ignore line (the fingerprint in the result message) to ' +
  '.svcignore on the default branch.';

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

function ruleDescriptor(id: RuleId) {
  return {
    id,
    // SARIF wants a name that reads as an identifier, distinct from the id: cloud-access-key-id → CloudAccessKeyId.
    name: id.replace(/(^|-)([a-z])/g, (_m, _sep, c: string) => c.toUpperCase()),
    shortDescription: { text: RULE_TITLES[id] },
    fullDescription: { text: RULE_DESCRIPTIONS[id] },
    help: { text: HELP },
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
