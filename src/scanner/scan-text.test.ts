import { describe, expect, it } from 'vitest';
import { fakeChatToken, fakeCloudKeyId, fakeGenericValue } from '../../test/helpers/fake-secrets.js';
import { locationOfFilename, scanText } from './scan-text.js';

describe('scanText', () => {
  it('numbers lines from 1 across LF and CRLF endings, one finding per rule and line', () => {
    const a = fakeCloudKeyId(1);
    const b = fakeCloudKeyId(2);
    const content = `one\r\ntwo\n\nid = "${a}" and "${b}"\r\nfive\nlast = "${fakeCloudKeyId(3)}"`;
    const { findings } = scanText([{ content, filename: 'src/a.ts' }]);
    expect(findings.map((f) => [f.line, f.ruleId])).toEqual([
      [4, 'cloud-access-key-id'],
      [6, 'cloud-access-key-id'],
    ]);
  });

  it('finds secrets of several rules on one line, and several keyword lines in a row', () => {
    const chat = fakeChatToken(4);
    const content = `x = "${fakeCloudKeyId(5)}"; slack = "${chat}"\npassword = "${fakeGenericValue(6)}"\n`;
    const { findings } = scanText([{ content }]);
    expect(findings.map((f) => [f.line, f.ruleId])).toEqual([
      [1, 'cloud-access-key-id'],
      [1, 'chat-token'],
      [2, 'generic-secret'],
    ]);
  });

  it('reports masked values only, never the secret', () => {
    const secret = fakeCloudKeyId(7);
    const result = scanText([{ content: secret }]);
    expect(result.findings[0]!.maskedValue).toBe(`AKIA${'*'.repeat(16)}`);
    expect(JSON.stringify(result)).not.toContain(secret.slice(4));
  });

  it('keeps the first maxFindings findings and counts the rest; a code finding past the cap still fails', () => {
    const lines = Array.from({ length: 5 }, (_, i) => `id = "${fakeCloudKeyId(20 + i)}"`).join('\n');
    const docs = [
      { content: lines, filename: 'test/a.ts' },
      { content: `key = "${fakeCloudKeyId(30)}"`, filename: 'src/late.ts' },
    ];
    const capped = scanText(docs, { maxFindings: 3 });
    expect(capped.findings.map((f) => [f.document, f.line])).toEqual([
      [0, 1],
      [0, 2],
      [0, 3],
    ]);
    expect(capped).toMatchObject({ total: 6, truncated: true, passed: false });
    expect(scanText(docs)).toMatchObject({ total: 6, truncated: false, passed: false });
    expect(scanText(docs).findings).toHaveLength(6);
    expect(scanText(docs, { maxFindings: 6 }).truncated).toBe(false);
  });

  it('fails only on code: tests, examples and docs are reported and pass', () => {
    const content = `key = "${fakeCloudKeyId(8)}"`;
    expect(scanText([{ content, filename: 'test/keys.ts' }]).passed).toBe(true);
    expect(scanText([{ content, filename: 'README.md' }]).passed).toBe(true);
    expect(scanText([{ content, filename: 'src/keys.ts' }]).passed).toBe(false);
    expect(scanText([{ content: 'nothing here' }]).passed).toBe(true);
  });

  it.each([
    [undefined, 'code'],
    ['', 'code'],
    ['src/app.ts', 'code'],
    ['tests\\unit\\app.ts', 'test'],
    ['config/.env.example', 'example'],
    ['docs/setup.txt', 'docs'],
  ])('the filename %j is located in %s', (filename, location) => {
    expect(locationOfFilename(filename)).toBe(location);
  });
});
