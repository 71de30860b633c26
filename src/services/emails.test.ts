import { describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/helpers/databases.js';
import { INVISIBLE_CHARACTERS } from '../../test/helpers/invisible-characters.js';
import { createAccountService } from './accounts.js';
import { EMAIL_INVALID, EMAIL_INVISIBLE, normalizeEmail } from './emails.js';

const refusal = (email: string) => {
  try {
    normalizeEmail(email);
    return null;
  } catch (e) {
    return e;
  }
};

describe('normalizeEmail', () => {
  it.each(INVISIBLE_CHARACTERS)('refuses %s at the start, inside and at the end of an address', (_, ch) => {
    for (const email of [
      `${ch}ada@example.com`,
      `ad${ch}a@example.com`,
      `ada@exa${ch}mple.com`,
      `ada@example.com${ch}`,
    ]) {
      expect(refusal(email), JSON.stringify(email)).toMatchObject({
        code: 'invalid-input',
        message: EMAIL_INVISIBLE,
      });
    }
  });

  it('NFC-normalizes and lower-cases, so one address has one form', () => {
    expect(normalizeEmail('  José@Example.COM ')).toBe('josé@example.com');
    // A decomposed é (e + combining acute) is the same address as the composed one.
    expect(normalizeEmail('Jose\u0301@example.com')).toBe(normalizeEmail('José@example.com'));
    expect(normalizeEmail('ÅSA@EXAMPLE.COM')).toBe('åsa@example.com');
    expect(normalizeEmail('A\u030aSA@example.com')).toBe('åsa@example.com');
  });

  it('refuses what is not shaped like an address', () => {
    for (const email of [
      '',
      'ada',
      'ada@',
      '@example.com',
      'ada@example',
      'a da@example.com',
      `${'a'.repeat(250)}@x.io`,
    ]) {
      expect(refusal(email), email).toMatchObject({ code: 'invalid-input', message: EMAIL_INVALID });
    }
  });

  it('holds for the operators commands too (svc admin runs the account service)', async () => {
    const db = await openTestDatabase('sqlite');
    try {
      const accounts = createAccountService({
        accounts: db.storage.accounts,
        apiKeys: db.storage.apiKeys,
        ciRuns: { usage: async () => ({ month: '2026-03', used: 0, limit: 200 }) },
      });
      for (const [name, ch] of INVISIBLE_CHARACTERS) {
        await expect(
          accounts.createUser({ email: `ada${ch}@example.com`, plan: 'free' }),
          name,
        ).rejects.toMatchObject({
          code: 'invalid-input',
          message: EMAIL_INVISIBLE,
        });
      }
      const user = await accounts.createUser({ email: 'Jose\u0301@Example.com', plan: 'free' });
      expect(user.email).toBe('josé@example.com');
      // Every later command finds the one account whichever form the operator types.
      expect((await accounts.setPlan('JOSÉ@example.com', 'paid')).id).toBe(user.id);
      expect(await accounts.issueKey('jose\u0301@example.com', 'ci')).toMatch(/^svc_/);
      await expect(accounts.usageOf('jos\u200be@example.com')).rejects.toMatchObject({
        message: EMAIL_INVISIBLE,
      });
      await accounts.createTeam({ name: 'crew', plan: 'free', hookMode: 'block' });
      await expect(accounts.addMember('crew', 'jos\u202ee@example.com')).rejects.toMatchObject({
        message: EMAIL_INVISIBLE,
      });
      await accounts.addMember('crew', 'JOSÉ@example.com');
      expect((await db.storage.accounts.findTeamOfUser(user.id))?.name).toBe('crew');
    } finally {
      await db.cleanup();
    }
  });
});
