import { beforeEach, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../auth/passwords.js';
import { DomainError } from './errors.js';
import { createSignInService, SIGN_IN_FAILED, type SignInService } from './sign-in.js';

const PASSWORD = 'correct horse battery';

describe('sign-in', () => {
  let db: TestDatabase;
  let signIn: SignInService;

  beforeEach(async () => {
    db = await openTestDatabase('sqlite');
    signIn = createSignInService(db.storage.credentials);
    return () => db.cleanup();
  });

  const failure = (attempt: Promise<unknown>) =>
    attempt.then(
      () => null,
      (e: unknown) => e,
    );

  it('stores an argon2id hash, never the password', async () => {
    await signIn.signUp('ada@example.com', PASSWORD);
    const found = await db.storage.credentials.findPasswordByEmail('ada@example.com');
    expect(found?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(found?.passwordHash).not.toContain(PASSWORD);
  });

  it('fails the same way, at the same cost, for an unknown email, a wrong password and no password', async () => {
    // Which hash each sign-in verified against: the same argon2 work either way is what keeps the
    // time taken from telling whether an email has an account (a check of work, not of the clock).
    const verified: string[] = [];
    const observed = createSignInService(db.storage.credentials, {
      hash: hashPassword,
      dummy: dummyPasswordHash,
      verify: (phc, password) => {
        verified.push(phc);
        return verifyPassword(phc, password);
      },
    });
    await observed.signUp('ada@example.com', PASSWORD);
    await db.storage.accounts.createUser({ email: 'operator-made@example.com' });
    const attempts = [
      ['ada@example.com', 'not the password'],
      ['nobody@example.com', 'not the password'],
      ['operator-made@example.com', PASSWORD],
    ] as const;
    for (const [email, password] of attempts) {
      verified.length = 0;
      const error = await failure(observed.signIn(email, password));
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ code: 'unauthenticated', message: SIGN_IN_FAILED });
      expect(verified, email).toHaveLength(1);
      // One verification with the same parameters (the PHC string's prefix up to the salt).
      expect(verified[0]!.split('$').slice(0, 4), email).toEqual(['', 'argon2id', 'v=19', 'm=19456,t=2,p=1']);
    }
  });

  it('counts parallel guesses on one email before checking them: 20 at once, 10 password checks', async () => {
    await signIn.signUp('ada@example.com', PASSWORD);
    let verified = 0;
    const observed = createSignInService(db.storage.credentials, {
      hash: hashPassword,
      dummy: dummyPasswordHash,
      verify: (phc, password) => {
        verified++;
        return verifyPassword(phc, password);
      },
    });
    const errors = await Promise.all(
      Array.from({ length: 20 }, (_, i) => failure(observed.signIn('ada@example.com', `guess number ${i}`))),
    );
    expect(verified).toBe(10);
    expect(errors.filter((e) => (e as DomainError).code === 'unauthenticated')).toHaveLength(10);
    expect(errors.filter((e) => (e as DomainError).code === 'quota-exhausted')).toHaveLength(10);
    expect(errors[0]).toBeInstanceOf(DomainError);
  });

  it('refuses malformed emails and out-of-range passwords before any work', async () => {
    for (const email of [
      '',
      'ada',
      'ada@',
      '@example.com',
      'ada@example',
      'a da@example.com',
      `${'a'.repeat(250)}@x.io`,
    ]) {
      expect(await failure(signIn.signUp(email, PASSWORD))).toMatchObject({ code: 'invalid-input' });
    }
    expect(await failure(signIn.signUp('ada@example.com', 'x'.repeat(11)))).toMatchObject({
      code: 'invalid-input',
      message: 'the password needs at least 12 characters',
    });
    expect(await failure(signIn.signUp('ada@example.com', 'x'.repeat(1025)))).toMatchObject({
      code: 'invalid-input',
    });
    expect(await db.storage.credentials.findPasswordByEmail('ada@example.com')).toBeNull();
  });
});
