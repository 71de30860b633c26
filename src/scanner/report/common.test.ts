import { describe, expect, it } from 'vitest';
import { finding, fullResult, scanResult } from '../../../test/helpers/scan-results.js';
import { RULE_IDS } from '../types.js';
import { dayOf, RULE_TITLES, sortFindings, summaryLine, visible } from './common.js';

describe('report helpers', () => {
  it('has a title for every rule', () => {
    expect(Object.keys(RULE_TITLES).sort()).toEqual([...RULE_IDS].sort());
  });

  it('orders findings the same whatever the input order', () => {
    const findings = fullResult().findings;
    const expected = sortFindings(findings).map((f) => f.fingerprint);
    for (let seed = 1; seed <= 5; seed++) {
      const shuffled = [...findings].sort(
        (a, b) => ((a.line * 31 + seed * 7) % 11) - ((b.line * 31 + seed * 7) % 11),
      );
      expect(sortFindings(shuffled).map((f) => f.fingerprint)).toEqual(expected);
    }
    expect(sortFindings([...findings].reverse()).map((f) => f.fingerprint)).toEqual(expected);
  });

  it('breaks ties by path, line, rule id and commit, by code unit not locale', () => {
    const base = { location: 'code', maskedValue: 'x***' } as const;
    const sorted = sortFindings([
      finding({ ...base, ruleId: 'webapi-key', path: 'b.ts', line: 1 }),
      finding({ ...base, ruleId: 'webapi-key', path: 'a.ts', line: 10 }),
      finding({ ...base, ruleId: 'webapi-key', path: 'a.ts', line: 2, commit: 'f'.repeat(40) }),
      finding({ ...base, ruleId: 'webapi-key', path: 'a.ts', line: 2, commit: 'e'.repeat(40) }),
      finding({ ...base, ruleId: 'chat-token', path: 'a.ts', line: 2 }),
      finding({ ...base, ruleId: 'chat-token', path: 'Z.ts', line: 1 }),
    ]);
    expect(sorted.map((f) => `${f.path}:${f.line}:${f.ruleId}:${f.commit?.[0]}`)).toEqual([
      'Z.ts:1:chat-token:a',
      'a.ts:2:chat-token:a',
      'a.ts:2:webapi-key:e',
      'a.ts:2:webapi-key:f',
      'a.ts:10:webapi-key:a',
      'b.ts:1:webapi-key:a',
    ]);
  });

  it('words the summary line for each verdict', () => {
    const code = finding({
      ruleId: 'webapi-key',
      path: 'a.ts',
      line: 1,
      location: 'code',
      maskedValue: 'AIza***',
    });
    const active = { ...code, verification: 'active' } as const;
    const ignored = { ...code, line: 2, ignored: true };
    const docs = { ...code, line: 3, location: 'docs' } as const;
    expect(summaryLine(scanResult({ findings: [active] }))).toBe(
      'FAIL: 1 failing finding in code; 1 active credential',
    );
    expect(summaryLine(scanResult({ findings: [code, docs] }))).toBe(
      'FAIL: 1 failing finding in code (2 total: 1 in other locations); 0 active credentials',
    );
    expect(summaryLine(scanResult({ findings: [ignored] }))).toBe(
      'PASS: no failing findings (1 total ignored); 0 active credentials',
    );
    expect(summaryLine(scanResult({ findings: [ignored, docs] }))).toBe(
      'PASS: no failing findings (2 total: 1 ignored, 1 in other locations); 0 active credentials',
    );
    expect(summaryLine(scanResult({ findings: [], incomplete: true, unreadableCommits: ['a', 'b'] }))).toBe(
      'INCOMPLETE: no failing findings in the commits read; 0 active credentials; 2 commits could not be read',
    );
  });

  it('makes control and bidi characters visible and keeps the date of the author', () => {
    expect(visible('a\tb\x1b\u202e\u00e9')).toBe('a\\u0009b\\u001b\\u202e\u00e9');
    expect(dayOf('2023-12-31T23:59:59-08:00')).toBe('2023-12-31');
    expect(dayOf('yesterday')).toBe('yesterday');
  });
});
