import { beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS, openTestDatabase, skipDialect, type TestDatabase } from '../../test/helpers/databases.js';
import { type AccountAttempts, createAccountAttempts } from '../auth/account-attempts.js';
import { hashToken } from '../auth/session-ids.js';
import {
  type AccountSecurityService,
  CURRENT_PASSWORD_WRONG,
  createAccountSecurityService,
} from './account-security.js';
import {
  createPasswordLinkService,
  LINK_EXPIRED,
  LINK_INVALID,
  PASSWORD_LINK_MS,
  type PasswordLinkService,
  passwordLinkUrl,
} from './password-links.js';
import { createSessionService, type SessionService } from './sessions.js';
import { ARGON2, createSignInService, PASSWORD_LEAKED, type SignInService } from './sign-in.js';
import type { Principal } from './vocabulary.js';

const skipped = new Map(
  await Promise.all(
    DIALECTS.map(async (d) => [d, await skipDialect(d, 'password link service tests')] as const),
  ),
);

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'purple otter kettle drum';

for (const dialect of DIALECTS) {
  describe.skipIf(skipped.get(dialect))(`one-time password links and password changes on ${dialect}`, () => {
    let db: TestDatabase;
    let clock: Date;
    let sessions: SessionService;
    let links: PasswordLinkService;
    let security: AccountSecurityService;
    let signIn: SignInService;
    let attempts: AccountAttempts;

    beforeEach(async () => {
      db = await openTestDatabase(dialect);
      clock = new Date('2026-05-01T08:00:00Z');
      const now = () => clock;
      attempts = createAccountAttempts({ points: 3 });
      sessions = createSessionService(db.storage.sessions, now);
      const deps = { credentials: db.storage.credentials, sessions, passwords: ARGON2, attempts };
      links = createPasswordLinkService({ ...deps, links: db.storage.passwordLinks, now });
      security = createAccountSecurityService(deps);
      signIn = createSignInService(db.storage.credentials, ARGON2, attempts);
      return () => db.cleanup();
    });

    const failure = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => e,
      );
    const principalOf = async (sessionId: string): Promise<Principal> => sessions.authenticate(sessionId);

    it('issues a random token stored only hashed; setting the password ends every session and starts one', async () => {
      const user = await db.storage.accounts.createUser({ email: 'op-made@example.com' });
      const before = await sessions.start(user.id);
      const { token, expiresAt } = await links.issue('Op-Made@Example.com');
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(expiresAt.getTime() - clock.getTime()).toBe(PASSWORD_LINK_MS);
      expect(passwordLinkUrl('https://svc.example/', token)).toBe(
        `https://svc.example/auth/set-password?token=${token}`,
      );
      expect(await db.storage.passwordLinks.findPasswordLink(token)).toBeNull();
      expect(await db.storage.passwordLinks.findPasswordLink(hashToken(token))).not.toBeNull();
      expect((await links.check(token)).email).toBe('op-made@example.com');

      const { user: who, sessionId } = await links.redeem(token, NEW_PASSWORD);
      expect(who.id).toBe(user.id);
      expect((await principalOf(sessionId)).user.id).toBe(user.id);
      await expect(principalOf(before)).rejects.toMatchObject({ code: 'unauthenticated' });
      expect((await signIn.signIn('op-made@example.com', NEW_PASSWORD)).id).toBe(user.id);
      // Single use.
      expect(await failure(links.redeem(token, NEW_PASSWORD))).toMatchObject({
        code: 'not-found',
        message: LINK_INVALID,
      });
      expect(await failure(links.check(token))).toMatchObject({ message: LINK_INVALID });
    });

    it('keeps the link when the password is refused, and refuses unknown, replaced and expired links', async () => {
      await db.storage.accounts.createUser({ email: 'r@example.com' });
      const first = (await links.issue('r@example.com')).token;
      expect(await failure(links.redeem(first, 'short'))).toMatchObject({ code: 'invalid-input' });
      expect(await failure(links.redeem(first, '123456789012'))).toMatchObject({ message: PASSWORD_LEAKED });
      expect((await links.check(first)).email).toBe('r@example.com');

      const second = (await links.issue('r@example.com')).token;
      expect(await failure(links.check(first))).toMatchObject({ message: LINK_INVALID });
      for (const bad of ['', 'x', `${second}x`, second.replace(/^./, second[0] === 'A' ? 'B' : 'A')]) {
        expect(await failure(links.check(bad))).toMatchObject({ code: 'not-found', message: LINK_INVALID });
      }
      clock = new Date(clock.getTime() + PASSWORD_LINK_MS - 1);
      expect((await links.check(second)).email).toBe('r@example.com');
      clock = new Date(clock.getTime() + 1);
      expect(await failure(links.check(second))).toMatchObject({ code: 'not-found', message: LINK_EXPIRED });
      expect(await failure(links.redeem(second, NEW_PASSWORD))).toMatchObject({ message: LINK_EXPIRED });
      expect(await db.storage.credentials.findPasswordByEmail('r@example.com')).toMatchObject({
        passwordHash: null,
      });
      expect(await failure(links.issue('nobody@example.com'))).toMatchObject({
        code: 'not-found',
        message: 'user not found: nobody@example.com',
      });
    });

    it('of two posts racing with one link, one sets the password', async () => {
      await db.storage.accounts.createUser({ email: 'race@example.com' });
      const { token } = await links.issue('race@example.com');
      const results = await Promise.allSettled([
        links.redeem(token, NEW_PASSWORD),
        links.redeem(token, 'another long passphrase here'),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    });

    it('changes a password with the current one; ends every session and rotates the caller', async () => {
      const user = await signIn.signUp('ch@example.com', PASSWORD);
      const mine = await sessions.start(user.id);
      const other = await sessions.start(user.id);
      const principal = await principalOf(mine);
      expect(await security.hasPassword(principal)).toBe(true);
      expect(
        await failure(security.changePassword(principal, 'not the password', NEW_PASSWORD)),
      ).toMatchObject({
        code: 'unauthenticated',
        message: CURRENT_PASSWORD_WRONG,
      });
      expect(await failure(security.changePassword(principal, PASSWORD, 'short'))).toMatchObject({
        code: 'invalid-input',
      });
      expect(await failure(security.changePassword(principal, PASSWORD, PASSWORD))).toMatchObject({
        code: 'invalid-input',
      });
      const rotated = await security.changePassword(principal, PASSWORD, NEW_PASSWORD);
      expect(rotated).not.toBe(mine);
      expect((await principalOf(rotated)).user.id).toBe(user.id);
      for (const old of [mine, other]) {
        await expect(principalOf(old)).rejects.toMatchObject({ code: 'unauthenticated' });
      }
      expect(await failure(signIn.signIn('ch@example.com', PASSWORD))).toMatchObject({
        code: 'unauthenticated',
      });
      expect((await signIn.signIn('ch@example.com', NEW_PASSWORD)).id).toBe(user.id);
    });

    it('counts a wrong current password against the account sign-in limit', async () => {
      const user = await signIn.signUp('guess@example.com', PASSWORD);
      const principal = await principalOf(await sessions.start(user.id));
      for (let i = 0; i < 3; i++) {
        expect(
          await failure(security.changePassword(principal, `wrong guess ${i}`, NEW_PASSWORD)),
        ).toMatchObject({
          code: 'unauthenticated',
        });
      }
      // Over the limit: refused before the check, even with the right password; sign-in too.
      expect(await failure(security.changePassword(principal, PASSWORD, NEW_PASSWORD))).toMatchObject({
        code: 'quota-exhausted',
      });
      expect(await failure(signIn.signIn('guess@example.com', PASSWORD))).toMatchObject({
        code: 'quota-exhausted',
      });
    });

    it('lets an account without a password (GitHub, an operator) set one without a current one', async () => {
      const user = await db.storage.accounts.createUser({ email: 'gh@example.com' });
      const principal = await principalOf(await sessions.start(user.id));
      expect(await security.hasPassword(principal)).toBe(false);
      const rotated = await security.changePassword(principal, '', NEW_PASSWORD);
      expect(await security.hasPassword(await principalOf(rotated))).toBe(true);
      expect((await signIn.signIn('gh@example.com', NEW_PASSWORD)).id).toBe(user.id);
    });

    it('signs out everywhere: every session of the user ends, no one else’s', async () => {
      const a = await signIn.signUp('a@example.com', PASSWORD);
      const b = await signIn.signUp('b@example.com', PASSWORD);
      const [a1, a2, b1] = [
        await sessions.start(a.id),
        await sessions.start(a.id),
        await sessions.start(b.id),
      ];
      await security.signOutEverywhere(await principalOf(a1));
      for (const s of [a1, a2])
        await expect(principalOf(s)).rejects.toMatchObject({ code: 'unauthenticated' });
      expect((await principalOf(b1)).user.id).toBe(b.id);
    });
  });
}
