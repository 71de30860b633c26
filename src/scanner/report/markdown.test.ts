import { describe, expect, it } from 'vitest';
import {
  emptyResult,
  finding,
  fullResult,
  passingResult,
  scanResult,
  TOOL_VERSION,
} from '../../../test/helpers/scan-results.js';
import type { Finding } from '../types.js';
import { renderReport } from './index.js';

const mdOf = (result = fullResult()) => renderReport(result, 'markdown', { toolVersion: TOOL_VERSION });
// GFM splits a table row on every `|` not preceded by a backslash.
const cells = (row: string) => row.split(/(?<!\\)\|/).slice(1, -1);
const tableRows = (md: string) => md.split('\n').filter((l) => l.startsWith('|'));

function codeFinding(path: string): Finding {
  return finding({ ruleId: 'generic-secret', path, line: 5, location: 'code', maskedValue: 'a|b`****' });
}

describe('markdown report', () => {
  it('heads with the verdict and the summary line', () => {
    expect(mdOf()).toMatch(/^## svc secret scan: ❌ failed\n\n\*\*FAIL: 4 failing findings in code/);
    expect(mdOf(passingResult())).toMatch(/^## svc secret scan: ✅ passed\n/);
    expect(mdOf(emptyResult())).toContain('**PASS: no findings; 0 active credentials**');
    const incomplete = scanResult({ findings: [], incomplete: true, unreadableCommits: ['ab'.repeat(20)] });
    expect(mdOf(incomplete)).toMatch(/^## svc secret scan: ⚠️ incomplete\n/);
  });

  it('tables failing code findings, and the rest inside <details>', () => {
    const md = mdOf();
    const [failingPart, detailsPart] = md.split('<details>');
    expect(tableRows(failingPart!)).toHaveLength(2 + 4);
    expect(detailsPart).toContain(
      '<summary>Other locations (5 findings, not failing)</summary>\n\n| Location |',
    );
    expect(tableRows(detailsPart!)).toHaveLength(2 + 5);
    expect(md).toContain('| **ACTIVE** |');
    expect(md).toContain('| `codehost-token:a1b2c3d4e5f6:src/client.ts:14` |');
    expect(md).toContain('unchecked: rate limited, ignored');
    expect(md).toContain('add its ignore line to `.svcignore` on the default branch');
  });

  it('keeps every row at its column count whatever the path holds', () => {
    const paths = ['deploy/my app|ünïcode_*<v2>.yml', 'a`b|c`', '`x`', 'new\nline|x.md', ' sp |ace '];
    const md = mdOf(scanResult({ findings: paths.map(codeFinding) }));
    for (const row of tableRows(md)) expect(cells(row)).toHaveLength(7);
    expect(md).toContain('| `deploy/my app\\|ünïcode_*<v2>.yml` |');
    expect(md).toContain('| `` a`b\\|c` `` |');
    expect(md).toContain('| `` `x` `` |');
    expect(md).toContain('`new\\u000aline\\|x.md`');
    expect(md).toContain('| ``a\\|b`****`` |');
  });

  it('escapes a check reason as plain text', () => {
    const f = { ...codeFinding('a.ts'), verificationReason: 'HTTP 500 <b>|*_' };
    expect(mdOf(scanResult({ findings: [f] }))).toContain('| unchecked: HTTP 500 \\<b\\>\\|\\*\\_ |');
  });

  it('warns about unreadable commits and shallow history', () => {
    expect(mdOf()).toContain('> [!WARNING]\n> Scan incomplete: 2 commits could not be read');
    expect(mdOf()).toContain('> - `cafebabecafebabecafebabecafebabecafebabe`');
    expect(mdOf(passingResult())).toContain('> [!WARNING]\n> Shallow clone:');
  });
});
