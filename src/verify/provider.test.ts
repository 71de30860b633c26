import { describe, expect, it } from 'vitest';
import { RULES } from '../scanner/index.js';
import { CHECKS } from './provider.js';

describe('CHECKS', () => {
  it('gives each rule either a read-only check or the reason from its rule file, never both', () => {
    for (const rule of RULES) {
      const check = CHECKS[rule.id];
      if (typeof check === 'function') expect(rule.uncheckable, rule.id).toBeUndefined();
      else expect(check.never, rule.id).toBe(rule.uncheckable);
    }
  });
});
