import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { passwordWeakness } from './password-strength.js';

describe('passwordWeakness', () => {
  it('finds whole passwords from the leaked-password list, whatever their case or direction', async () => {
    for (const password of ['123456789012', 'qwerty123456', '1q2w3e4r5t6y', 'QWERTY123456', '654321ytrewq']) {
      expect(await passwordWeakness(password), password).toBe('leaked');
    }
  });

  it('finds trivial passwords: a common word with digits, repeats, sequences, keyboard walks', async () => {
    for (const password of [
      'password1234',
      'Password1234!',
      'p@ssw0rd1234',
      'iloveyou1234',
      'aaaaaaaaaaaa',
      'abc123abc123',
      'abcdefghijkl',
      'qwertyuiopas',
      'x'.repeat(1024),
    ]) {
      expect(await passwordWeakness(password), password).toBe('guessable');
    }
  });

  it('accepts passphrases and random passwords', async () => {
    for (const password of [
      'correct horse battery',
      'another long password',
      'Tr0ub4dor&3horse',
      randomBytes(12).toString('base64url'),
    ]) {
      expect(await passwordWeakness(password), password).toBeNull();
    }
  });
});
