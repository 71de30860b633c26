import { describe, expect, it } from 'vitest';
import {
  emptyResult,
  finding,
  fullResult,
  passingResult,
  scanResult,
  TOOL_VERSION,
} from '../../../test/helpers/scan-results.js';
import { renderReport } from './index.js';

const ESC = '\x1b';
const textOf = (result = fullResult(), color = false) =>
  renderReport(result, 'text', { toolVersion: TOOL_VERSION, color });

describe('text report', () => {
  it('writes no escape code at all without color (the default)', () => {
    for (const result of [fullResult(), passingResult(), emptyResult()]) {
      expect(textOf(result)).not.toContain(ESC);
      expect(renderReport(result, 'text', { toolVersion: TOOL_VERSION })).not.toContain(ESC);
    }
  });

  it('with color only adds escape codes around the same text', () => {
    const colored = textOf(fullResult(), true);
    expect(colored).toContain(`${ESC}[1;31mFAIL${ESC}[0m`);
    expect(colored).toContain(`${ESC}[1;31mACTIVE${ESC}[0m`);
    expect(textOf(passingResult(), true)).toContain(`${ESC}[1;32mPASS${ESC}[0m`);
    expect(colored.replace(/\x1b\[[0-9;]*m/g, '')).toBe(textOf());
  });

  it('shows failing code findings first (ACTIVE ones first of all), then ignored code, then the other classes collapsed', () => {
    const out = textOf();
    const order = [
      'Failing findings in code: 4',
      'src/client.ts:14',
      'config/deploy.env:2',
      'Ignored findings in code (listed in .svcignore): 1',
      'scripts/notify.sh:3',
      'Other locations (not failing): 2 in test, 1 in example, 1 in docs',
      '[docs] docs/setup.md:30  private-key  RSA',
      'WARNING: Scan incomplete: 2 commits could not be read',
      'FAIL: 4 failing findings in code (9 total: 1 ignored, 4 in other locations); 2 active credentials',
    ].map((s) => out.indexOf(s));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(out.endsWith('2 active credentials\n')).toBe(true);
  });

  it('gives each failing finding its status, commit, date and ignore line', () => {
    const out = textOf();
    expect(out).toContain('  GitHub token (codehost-token)  ACTIVE\n    src/client.ts:14\n');
    expect(out).toContain('Stripe live key (payment-live-key)  (revoked)');
    expect(out).toContain('commit 0123456789ab by Bob Builder on 2023-12-31');
    expect(out).toContain('unchecked: no check exists for this rule');
    expect(out).toContain('    ignore: payment-live-key:0123456789ab:src/billing/charge.ts:8\n');
  });

  it('states the verdict for passing, empty, incomplete and shallow scans', () => {
    expect(textOf(passingResult())).toContain(
      'PASS: no failing findings (3 total in other locations); 0 active',
    );
    expect(textOf(passingResult())).toContain('WARNING: Shallow clone');
    expect(textOf(emptyResult())).toBe(
      [
        'svc 0.1.0 | repository . | 0 commits scanned | no default branch',
        '',
        'Nothing to scan: the repository has no commits.',
        '',
        'PASS: no findings; 0 active credentials',
        '',
      ].join('\n'),
    );
    const incomplete = scanResult({ findings: [], incomplete: true, unreadableCommits: ['ab'.repeat(20)] });
    expect(textOf(incomplete)).toContain(
      'INCOMPLETE: no failing findings in the commits read; 0 active credentials',
    );
  });

  it('cannot be driven by control characters in repository data', () => {
    const evil = finding({
      ruleId: 'webapi-key',
      path: 'src/\x1b[2Jclear\n\u202eevil.ts',
      line: 1,
      location: 'code',
      maskedValue: 'AIza****************',
    });
    const out = textOf(scanResult({ findings: [evil] }));
    expect(out).not.toContain(ESC);
    expect(out).not.toContain('\u202e');
    expect(out).toContain('src/\\u001b[2Jclear\\u000a\\u202eevil.ts:1');
  });
});
