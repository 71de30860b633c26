import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { detectSecrets } from '../detect/detect-line.js';
import { mayContainSecret, PREFILTER } from '../detect/prefilter.js';
import { RULE_IDS } from '../types.js';
import { RULES, ruleById } from './index.js';

const KEY_TYPES = ['RSA', 'EC', 'DSA', 'OPENSSH', 'PGP', 'PRIVATE KEY'];

describe('rule set', () => {
  it('is exactly the eight rules of RULE_IDS, in order', () => {
    expect(RULES.map((r) => r.id)).toEqual([...RULE_IDS]);
  });

  it('says, in words, why each rule without a provider check is never checked', () => {
    const unchecked = RULES.filter((r) => r.uncheckable !== undefined);
    expect(unchecked.map((r) => r.id)).toEqual([
      'cloud-access-key-id',
      'webapi-key',
      'private-key',
      'generic-secret',
    ]);
    for (const rule of unchecked) expect(rule.uncheckable, rule.id).toMatch(/^[a-z][a-z ,:-]{20,}[a-z]$/);
  });

  it('looks rules up by id', () => {
    for (const rule of RULES) expect(ruleById(rule.id)).toBe(rule);
    expect(ruleById('no-such-rule')).toBeUndefined();
  });
});

describe.each(RULES.map((rule) => [rule.id, rule] as const))('%s', (id, rule) => {
  it('has a global pattern with a `secret` group, lowercase keywords and enough samples', () => {
    expect(rule.pattern.global).toBe(true);
    expect(rule.pattern.source).toContain('(?<secret>');
    for (const k of rule.keywords) expect(k).toBe(k.toLowerCase());
    expect(rule.samples.positives.length).toBeGreaterThanOrEqual(6);
    expect(rule.samples.negatives.length).toBeGreaterThanOrEqual(6);
  });

  it.each(rule.samples.positives.map((line) => [line]))('finds exactly one in %s', (line) => {
    const found = detectSecrets(line);
    const mine = found.filter((m) => m.ruleId === id);
    expect(mine).toHaveLength(1);
    // Specific wins: the same value is never reported a second time as a generic secret.
    if (id !== 'generic-secret') expect(found.filter((m) => m.ruleId === 'generic-secret')).toEqual([]);
    const [m] = mine;
    expect(line.slice(m!.start, m!.end)).toBe(m!.secret);
    if (id === 'private-key') {
      expect(KEY_TYPES).toContain(m!.maskedValue);
    } else {
      expect(m!.maskedValue).toBe(m!.secret.slice(0, 4) + '*'.repeat(16));
    }
    expect(m!.maskedValue).not.toContain(m!.secret.slice(4, 8));
  });

  it.each(rule.samples.positives.map((line) => [line]))('prefilter hits %s', (line) => {
    expect(mayContainSecret(line)).toBe(true);
    expect(rule.keywords.some((k) => line.toLowerCase().includes(k))).toBe(true);
    PREFILTER.lastIndex = 0;
    expect(PREFILTER.exec(line)).not.toBeNull();
    PREFILTER.lastIndex = 0;
  });

  it.each(rule.samples.negatives.map((line) => [line]))('finds none in %s', (line) => {
    expect(detectSecrets(line).filter((m) => m.ruleId === id)).toEqual([]);
  });
});

describe('the rule and detector sources', () => {
  // The samples are assembled from parts so the scanner, run on this repository, does not fail on itself.
  const here = dirname(fileURLToPath(import.meta.url));
  const files = [here, join(here, '../detect')].flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(dir, f)),
  );

  it.each(files.map((f) => [f]))('%s holds no line the scanner reports', (file) => {
    const hits = readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => detectSecrets(line).map((m) => `${i + 1}: ${m.ruleId}`));
    expect(hits).toEqual([]);
  });
});
