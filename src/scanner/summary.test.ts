import { describe, expect, it } from 'vitest';
import { fingerprintOf } from './fingerprint.js';
import { isFailing, summarize } from './summary.js';
import type { Finding, Location, Verification } from './types.js';

const COMMIT = '0123456789abcdef0123456789abcdef01234567';

function finding(location: Location, ignored: boolean, verification: Verification = 'unchecked'): Finding {
  return {
    ruleId: 'codehost-token',
    commit: COMMIT,
    path: `${location}/x.env`,
    line: 1,
    location,
    maskedValue: 'ghp_****************',
    verification,
    fingerprint: fingerprintOf('codehost-token', COMMIT, `${location}/x.env`, 1),
    ignored,
    author: 'a',
    date: '2020-01-01T00:00:00Z',
  };
}

describe('the pass/fail rule', () => {
  // Only an unignored finding in code fails a scan; every other row of the table passes.
  it.each<[Location, boolean, boolean]>([
    ['code', false, true],
    ['code', true, false],
    ['test', false, false],
    ['test', true, false],
    ['example', false, false],
    ['example', true, false],
    ['docs', false, false],
    ['docs', true, false],
  ])('%s, ignored %s: failing %s', (location, ignored, failing) => {
    expect(isFailing(finding(location, ignored))).toBe(failing);
  });
});

describe('summarize', () => {
  it('is all zeros for no findings', () => {
    expect(summarize([])).toEqual({
      total: 0,
      failing: 0,
      ignored: 0,
      byLocation: { code: 0, test: 0, example: 0, docs: 0 },
      active: 0,
      revoked: 0,
      unchecked: 0,
    });
  });

  it('counts each finding once per column: failing, ignored, its location and its verification', () => {
    const findings = [
      finding('code', false, 'active'),
      finding('code', false, 'revoked'),
      finding('code', true, 'active'),
      finding('test', false, 'unchecked'),
      finding('test', true, 'revoked'),
      finding('example', false, 'revoked'),
      finding('docs', true, 'unchecked'),
      finding('docs', false, 'unchecked'),
      finding('docs', false, 'unchecked'),
    ];
    expect(summarize(findings)).toEqual({
      total: 9,
      failing: 2,
      ignored: 3,
      byLocation: { code: 3, test: 2, example: 1, docs: 3 },
      active: 2,
      revoked: 3,
      unchecked: 4,
    });
  });
});

describe('fingerprintOf', () => {
  it('is <rule>:<first 12 characters of the commit>:<path>:<line>', () => {
    expect(fingerprintOf('private-key', COMMIT, 'deploy/id_rsa', 12)).toBe(
      'private-key:0123456789ab:deploy/id_rsa:12',
    );
  });

  it('keeps colons and spaces of the path as they are (the line is after the last colon)', () => {
    expect(fingerprintOf('generic-secret', 'f'.repeat(64), 'a: b/c:d.env', 3)).toBe(
      `generic-secret:${'f'.repeat(12)}:a: b/c:d.env:3`,
    );
  });
});
