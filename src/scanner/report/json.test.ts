import { describe, expect, it } from 'vitest';
import {
  emptyResult,
  CONTRACT_FINDING_KEYS as FINDING_KEYS,
  fullResult,
  TOOL_VERSION,
  CONTRACT_REPORT_KEYS as TOP_KEYS,
} from '../../../test/helpers/scan-results.js';
import type { ScanResult } from '../types.js';
import { renderReport } from './index.js';

const SUMMARY_KEYS = ['total', 'failing', 'ignored', 'byLocation', 'active', 'revoked', 'unchecked'];

const jsonOf = (result: ScanResult) =>
  JSON.parse(renderReport(result, 'json', { toolVersion: TOOL_VERSION }));

describe('json report (version 1)', () => {
  it('has exactly the contract keys, in order, at every level', () => {
    const report = jsonOf(fullResult());
    expect(Object.keys(report)).toEqual(TOP_KEYS);
    expect(report.version).toBe(1);
    expect(report.tool).toEqual({ name: 'svc', version: TOOL_VERSION });
    expect(Object.keys(report.summary)).toEqual(SUMMARY_KEYS);
    expect(Object.keys(report.summary.byLocation)).toEqual(['code', 'test', 'example', 'docs']);
    for (const f of report.findings) expect(Object.keys(f)).toEqual(FINDING_KEYS);
  });

  it('carries the counts, the verdict and the scan state', () => {
    const report = jsonOf(fullResult());
    expect(report.summary).toEqual({
      total: 9,
      failing: 4,
      ignored: 2,
      byLocation: { code: 5, test: 2, example: 1, docs: 1 },
      active: 2,
      revoked: 2,
      unchecked: 5,
    });
    expect(report.passed).toBe(false);
    expect(report.incomplete).toBe(true);
    expect(report.unreadableCommits).toHaveLength(2);
    expect(report.findings).toHaveLength(9);
  });

  it('lists failing findings first, then by location class', () => {
    const report = jsonOf(fullResult());
    const classes = report.findings.map((f: { location: string; ignored: boolean }) =>
      f.location === 'code' && !f.ignored ? 'failing' : f.location,
    );
    expect(classes).toEqual([
      'failing',
      'failing',
      'failing',
      'failing',
      'code',
      'test',
      'test',
      'example',
      'docs',
    ]);
  });

  it('leaves out what the contract does not define', () => {
    const text = renderReport(fullResult(), 'json', { toolVersion: TOOL_VERSION });
    expect(text).not.toContain('shallow');
    expect(text).not.toContain('verificationReason');
    expect(text).not.toContain('rate limited');
  });

  it('is pretty-printed with two spaces and ends with a newline', () => {
    const text = renderReport(emptyResult(), 'json', { toolVersion: TOOL_VERSION });
    expect(text.startsWith('{\n  "version": 1,\n')).toBe(true);
    expect(text.endsWith('}\n')).toBe(true);
    expect(jsonOf(emptyResult())).toMatchObject({
      defaultBranch: null,
      commitsScanned: 0,
      findings: [],
      passed: true,
    });
  });
});
