import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { describe, expect, it } from 'vitest';
import { CASES, randoms as randomStrings } from '../../../test/fixtures/generic-secret-cases.js';
import { bpeTokenCount, tokenEfficiency } from './token-efficiency.js';

const reference = new Tiktoken(cl100k);

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const RANDOM = [
  ...randomStrings('0123456789abcdef', 32, 2000, 3),
  ...randomStrings(BASE62, 16, 2000, 5),
  ...randomStrings(`${BASE62}+/=_-`, 40, 2000, 9),
  ...randomStrings('abcdefghijklmnopqrstuvwxyz', 20, 2000, 13),
];

describe('BPE token count over the shipped vocabulary', () => {
  it("equals cl100k_base's own count (js-tiktoken) on every lower-case value it is used on", () => {
    // The rule's values hold no white space (its pattern stops at one), and the vocabulary has no
    // token with a space.
    const texts = [...CASES.map((c) => c.value), ...RANDOM.slice(0, 2000)]
      .filter((t) => !/\s/.test(t))
      .map((t) => t.toLowerCase());
    const differing = texts.filter((t) => bpeTokenCount(t) !== reference.encode(t).length);
    expect(differing).toEqual([]);
  });

  it('reads random strings at under 2.7 characters a token, words at 3 and more', () => {
    expect(Math.max(...RANDOM.map(tokenEfficiency))).toBeLessThan(2.7);
    for (const words of ['getTokenByRangeStart', 'action_controller.csrf_token', '/disk/:encoded_token']) {
      expect(tokenEfficiency(words)).toBeGreaterThanOrEqual(3);
    }
  });
});
