import { describe, expect, it } from 'vitest';
import { emptyResult, fullResult, passingResult, TOOL_VERSION } from '../../../test/helpers/scan-results.js';
import type { ScanResult } from '../types.js';
import { REPORT_FORMATS, type ReportFormat, renderReport } from './index.js';

// Fake raw secrets, kept only here: the masked values in the fixture are their first four characters.
const RAW: Record<string, string> = {
  'AKIA****************': 'AKIAZ7QW3RTY5UIOPLKJ',
  'ghp_****************': 'ghp_f4K3t0k3nV4lu3Th4tMu5tN3v3rL34k0123',
  'sk_l****************': 'sk_live_51FakeKeyValueForTests000000',
  'xoxb****************': 'xoxb-1234567890-fakechattoken',
  'AIza****************': 'AIzaSyFakeWebApiKeyForTests_0123456789',
};

/** A result whose findings drag their raw value along, as a careless upstream object might. */
function leakyResult(): ScanResult {
  const result = fullResult();
  const findings = result.findings.map((f) => {
    const raw = RAW[f.maskedValue] ?? 'PRIVATE-KEY-BODY-MIIEowIBAAKCAQEA';
    return Object.assign({ ...f }, { secret: raw, match: { value: raw }, line_text: `token = "${raw}"` });
  });
  return { ...result, findings };
}

describe('renderReport', () => {
  it("offers the four documented formats and GitLab's secret-detection report", () => {
    expect(REPORT_FORMATS).toEqual(['text', 'json', 'sarif', 'markdown', 'gitlab']);
  });

  it('never writes more than the masked value', () => {
    const raws = [...Object.values(RAW), 'PRIVATE-KEY-BODY-MIIEowIBAAKCAQEA'];
    for (const format of REPORT_FORMATS) {
      for (const color of [false, true]) {
        const out = renderReport(leakyResult(), format, { toolVersion: TOOL_VERSION, color });
        for (const raw of raws) {
          expect(out).not.toContain(raw);
          // Not even the part after the four characters the mask shows.
          expect(out).not.toContain(raw.slice(4, 14));
        }
        expect(out).toContain('AKIA****************');
      }
    }
  });

  it('is deterministic', () => {
    for (const format of REPORT_FORMATS) {
      for (const build of [fullResult, passingResult, emptyResult]) {
        const options = { toolVersion: TOOL_VERSION };
        expect(renderReport(build(), format, options)).toBe(renderReport(build(), format, options));
      }
    }
  });

  it('refuses a format it does not know', () => {
    expect(() => renderReport(emptyResult(), 'xml' as ReportFormat, { toolVersion: TOOL_VERSION })).toThrow(
      /unknown report format: xml/,
    );
  });
});
