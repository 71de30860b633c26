import { beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS, openTestDatabase, skipDialect, type TestDatabase } from '../../test/helpers/databases.js';
import type { Storage } from './index.js';

const skipped = new Map(
  await Promise.all(
    DIALECTS.map(async (d) => [d, await skipDialect(d, 'password link storage tests')] as const),
  ),
);

const AT = new Date('2026-01-01T00:00:00Z');
const hours = (n: number) => new Date(AT.getTime() + n * 3_600_000);

for (const dialect of DIALECTS) {
  describe.skipIf(skipped.get(dialect))(
    `password links, passwords and sessions storage on ${dialect}`,
    () => {
      let db: TestDatabase;
      let storage: Storage;

      beforeEach(async () => {
        db = await openTestDatabase(dialect);
        storage = db.storage;
        return () => db.cleanup();
      });

      const save = (tokenHash: string, userId: number, expiresAt: Date) =>
        storage.passwordLinks.savePasswordLink({ tokenHash, userId, at: AT, expiresAt });

      it('keeps one link per user by hash: a new one replaces the old, and it is taken once while valid', async () => {
        const user = await storage.accounts.createUser({ email: 'link@example.com' });
        await save('h1', user.id, hours(24));
        expect(await storage.passwordLinks.findPasswordLink('h1')).toMatchObject({
          user: { id: user.id, email: 'link@example.com' },
        });
        expect((await storage.passwordLinks.findPasswordLink('h1'))?.expiresAt.toISOString()).toBe(
          hours(24).toISOString(),
        );
        // A newer link: the older hash finds nothing any more.
        await save('h2', user.id, hours(24));
        expect(await storage.passwordLinks.findPasswordLink('h1')).toBeNull();
        expect(await storage.passwordLinks.takePasswordLink('h1', AT)).toBeNull();
        // Not after it expired; of two racing takes, one gets it.
        expect(await storage.passwordLinks.takePasswordLink('h2', hours(24))).toBeNull();
        const taken = await Promise.all([
          storage.passwordLinks.takePasswordLink('h2', hours(1)),
          storage.passwordLinks.takePasswordLink('h2', hours(1)),
        ]);
        expect(taken.filter((t) => t !== null)).toEqual([user.id]);
        expect(await storage.passwordLinks.findPasswordLink('h2')).toBeNull();
      });

      it('drops expired links only', async () => {
        const a = await storage.accounts.createUser({ email: 'a@example.com' });
        const b = await storage.accounts.createUser({ email: 'b@example.com' });
        await save('old', a.id, hours(1));
        await save('new', b.id, hours(24));
        expect(await storage.passwordLinks.deletePasswordLinksExpiredBefore(hours(2))).toBe(1);
        expect(await storage.passwordLinks.findPasswordLink('old')).toBeNull();
        expect(await storage.passwordLinks.findPasswordLink('new')).not.toBeNull();
      });

      it('sets a password hash by user id, and ends every session of one user only', async () => {
        const user = await storage.accounts.createUser({ email: 'p@example.com' });
        const other = await storage.accounts.createUser({ email: 'q@example.com' });
        expect(await storage.credentials.findPasswordByUserId(user.id)).toMatchObject({ passwordHash: null });
        await storage.credentials.setPasswordHash(user.id, '$argon2id$fake');
        expect(await storage.credentials.findPasswordByUserId(user.id)).toMatchObject({
          user: { email: 'p@example.com' },
          passwordHash: '$argon2id$fake',
        });
        expect(await storage.credentials.findPasswordByUserId(other.id + 1000)).toBeNull();
        await expect(storage.credentials.setPasswordHash(other.id + 1000, 'x')).rejects.toMatchObject({
          code: 'not-found',
        });

        for (const [hash, id] of [
          ['s1', user.id],
          ['s2', user.id],
          ['s3', other.id],
        ] as const) {
          await storage.sessions.createSession({ idHash: hash, userId: id, at: AT });
        }
        expect(await storage.sessions.deleteSessionsOfUser(user.id)).toBe(2);
        expect(await storage.sessions.findSessionOwner('s1')).toBeNull();
        expect(await storage.sessions.findSessionOwner('s2')).toBeNull();
        expect(await storage.sessions.findSessionOwner('s3')).not.toBeNull();
      });
    },
  );
}
