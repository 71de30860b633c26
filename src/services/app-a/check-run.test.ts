import { describe, expect, it } from 'vitest';
import { checkRunResult, failedCheckRun } from './check-run.js';

const finding = (over: Record<string, unknown>) => ({
  ruleId: 'codehost-token',
  commit: 'a'.repeat(40),
  path: 'src/app.js',
  line: 3,
  location: 'code',
  maskedValue: 'ghp_****************',
  verification: 'unchecked',
  fingerprint: `codehost-token:${'a'.repeat(12)}:src/app.js:3`,
  ignored: false,
  ...over,
});
const summary = (over: Record<string, number>) => ({ total: 0, failing: 0, active: 0, ...over });

describe('what a check run says', () => {
  it('fails exactly when a code finding is not ignored, and counts what is live', () => {
    const result = checkRunResult(
      {
        summary: summary({ total: 3, failing: 1, active: 1 }),
        findings: [
          finding({ verification: 'active' }),
          finding({ path: 'test/x.js', location: 'test', fingerprint: 'f2' }),
          finding({ path: 'src/ok.js', ignored: true, fingerprint: 'f3' }),
        ],
      },
      '# report',
      2,
    );
    expect(result.conclusion).toBe('failure');
    expect(result.output.title).toBe('1 secret in code, 1 ACTIVE (2 new commits)');
    // Code findings only; an ignored one as a notice.
    expect(result.annotationBatches.flat().map((a) => [a.path, a.annotation_level])).toEqual([
      ['src/app.js', 'failure'],
      ['src/ok.js', 'notice'],
    ]);
    const [active] = result.annotationBatches.flat();
    expect(active?.message).toContain('ghp_**************** (ACTIVE: revoke it now)');
    expect(active?.message).toContain(`Fingerprint: codehost-token:${'a'.repeat(12)}:src/app.js:3`);
  });

  it('passes with findings only outside code or ignored, and says so', () => {
    const result = checkRunResult(
      { summary: summary({ total: 2 }), findings: [finding({ location: 'docs', path: 'README.md' })] },
      '# report',
      1,
    );
    expect(result.conclusion).toBe('success');
    expect(result.output.title).toBe('No secrets in real code in 1 new commit (2 elsewhere or ignored)');
    expect(result.annotationBatches).toEqual([]);
  });

  it('splits annotations 50 a request and cuts a summary past the platform limit, saying so', () => {
    const findings = Array.from({ length: 101 }, (_, i) => finding({ line: i + 1, fingerprint: `f${i}` }));
    const result = checkRunResult(
      { summary: summary({ total: 101, failing: 101 }), findings },
      'x'.repeat(70_000),
      1,
    );
    expect(result.annotationBatches.map((b) => b.length)).toEqual([50, 50, 1]);
    expect(result.output.summary.length).toBe(65_535);
    expect(result.output.summary).toContain('longer than a check run holds');
  });

  it('is neutral with the reason when the scan could not run', () => {
    expect(failedCheckRun('the scan took longer than 900 s')).toEqual({
      conclusion: 'neutral',
      output: {
        title: 'The scan could not run',
        summary: expect.stringContaining('the scan took longer than 900 s'),
      },
    });
  });
});
