import { describe, expect, it } from 'vitest';
import { isCi } from './ci.js';

describe('isCi', () => {
  it.each<[string | undefined, boolean]>([
    [undefined, false],
    ['', false],
    ['   ', false],
    ['0', false],
    ['false', false],
    ['FALSE', false],
    ['False', false],
    ['true', true],
    ['TRUE', true],
    ['1', true],
    [' 1 ', true],
    ['yes', true],
    ['woodpecker', true],
  ])('CI=%j counts as CI: %s', (value, expected) => {
    expect(isCi(value === undefined ? {} : { CI: value })).toBe(expected);
  });

  it('reads process.env by default', () => {
    expect(isCi()).toBe(isCi(process.env));
  });
});
