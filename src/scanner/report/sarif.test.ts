import { readFileSync } from 'node:fs';
import AjvDraft04 from 'ajv-draft-04';
import { describe, expect, it } from 'vitest';
import {
  emptyResult,
  fullResult,
  passingResult,
  scanResult,
  TOOL_VERSION,
} from '../../../test/helpers/scan-results.js';
import { RULE_IDS, type ScanResult } from '../types.js';
import { renderReport } from './index.js';
import { pathToUri } from './sarif.js';

// The official OASIS SARIF 2.1.0 schema (draft-04), shipped inside @microsoft/jest-sarif.
const SCHEMA_URL = new URL(
  '../../../node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json',
  import.meta.url,
);

function validator() {
  // unicodeRegExp off: the schema's language-tag pattern is not a valid `u`-flag regex.
  const ajv = new AjvDraft04.default({ allErrors: true, strict: false, unicodeRegExp: false });
  // ajv-formats is not installed; these are the only formats the schema names. uri-reference is
  // strict on purpose: it is what catches a path that was not percent-encoded.
  ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:[^\s"<>\\^`{|}]*$/i);
  ajv.addFormat('uri-reference', /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/);
  ajv.addFormat(
    'date-time',
    (s: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(s) && !Number.isNaN(Date.parse(s)),
  );
  return ajv.compile(JSON.parse(readFileSync(SCHEMA_URL, 'utf8')));
}
const validate = validator();

function sarifOf(result: ScanResult) {
  return JSON.parse(renderReport(result, 'sarif', { toolVersion: TOOL_VERSION }));
}

describe('sarif report', () => {
  it.each([
    ['full', fullResult],
    ['passing', passingResult],
    ['empty', emptyResult],
  ])('is valid against the SARIF 2.1.0 schema (%s)', (_name, build) => {
    const log = sarifOf(build());
    expect(validate(log), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('rejects a broken log (negative controls)', () => {
    const noMessage = sarifOf(fullResult());
    delete noMessage.runs[0].results[0].message;
    expect(validate(noMessage)).toBe(false);

    const rawPath = sarifOf(fullResult());
    rawPath.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri = 'my dir/a b.txt';
    expect(validate(rawPath)).toBe(false);
  });

  it('describes all eight rules, and each result points at its own', () => {
    const run = sarifOf(fullResult()).runs[0];
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toEqual([...RULE_IDS]);
    for (const r of run.results) expect(run.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
    expect(run.tool.driver.rules[0]).toMatchObject({
      name: 'CloudAccessKeyId',
      shortDescription: { text: 'AWS access key ID' },
      defaultConfiguration: { level: 'error' },
      properties: { tags: ['security', 'secret'] },
    });
  });

  it('levels: error for failing, warning for other, note and a suppression for ignored', () => {
    type SarifResult = { level: string; suppressions?: unknown; partialFingerprints: Record<string, string> };
    const results: SarifResult[] = sarifOf(fullResult()).runs[0].results;
    const levelOf = (fp: string) => results.find((r) => r.partialFingerprints['svc/v1']!.startsWith(fp))!;
    expect(levelOf('codehost-token:a1b2c3d4e5f6:src/client.ts').level).toBe('error');
    expect(levelOf('codehost-token:0123456789ab:tests/').level).toBe('warning');
    const ignored = levelOf('chat-token:fedcba987654:scripts/notify.sh');
    expect(ignored.level).toBe('note');
    expect(ignored.suppressions).toEqual([{ kind: 'external', justification: 'listed in .svcignore' }]);
    expect(results.filter((r) => r.suppressions)).toHaveLength(2);
  });

  it('encodes paths as relative URI references that decode back to the path', () => {
    const path = 'deploy/my app|ünïcode_*<v2>.yml';
    expect(pathToUri(path)).toBe('deploy/my%20app%7C%C3%BCn%C3%AFcode_*%3Cv2%3E.yml');
    expect(pathToUri('c:odd/100%#?.txt')).toBe('c%3Aodd/100%25%23%3F.txt');
    expect(pathToUri('bad\ud800.txt')).toBe('bad%EF%BF%BD.txt');
    expect(pathToUri(path).split('/').map(decodeURIComponent).join('/')).toBe(path);
  });

  it('reports unreadable commits as a tool execution notification', () => {
    const [inv] = sarifOf(fullResult()).runs[0].invocations;
    expect(inv.executionSuccessful).toBe(true);
    expect(inv.toolExecutionNotifications).toHaveLength(1);
    expect(inv.toolExecutionNotifications[0].message.text).toContain(
      'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef',
    );
    expect(sarifOf(scanResult({ findings: [] })).runs[0].invocations).toEqual([
      { executionSuccessful: true },
    ]);
  });
});
