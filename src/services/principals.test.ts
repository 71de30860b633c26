import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, openTestDatabase, skipDialect, type TestDatabase } from '../../test/helpers/databases.js';
import { generateApiKey, hashApiKey } from '../auth/api-keys.js';
import { DomainError } from './errors.js';
import { createPrincipalService } from './principals.js';

for (const dialect of DIALECTS) {
  describe.skipIf(await skipDialect(dialect))(`principals on ${dialect}`, () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await openTestDatabase(dialect);
    });
    afterAll(() => db.cleanup());

    async function keyFor(email: string, plan: 'free' | 'paid') {
      const user = await db.storage.accounts.createUser({ email, plan });
      const { key, prefix, hash } = generateApiKey();
      await db.storage.apiKeys.createApiKey({ userId: user.id, name: 'k', prefix, hash });
      return key;
    }

    it("gives a team member the team's plan and a user outside any team their own", async () => {
      const principals = createPrincipalService(db.storage.apiKeys, () => new Date());
      const member = await keyFor('member@example.test', 'free');
      const loner = await keyFor('loner@example.test', 'paid');
      await db.storage.accounts.createTeam({ name: 'core', plan: 'paid', hookMode: 'warn' });
      await db.storage.accounts.addTeamMember('core', 'member@example.test');

      const asMember = await principals.authenticate(`Bearer ${member}`);
      expect(asMember.user.plan).toBe('free');
      expect(asMember.plan).toBe('paid');
      expect(asMember.team).toMatchObject({ name: 'core', hookMode: 'warn' });
      expect(await principals.authenticate(`Bearer ${loner}`)).toMatchObject({ team: null, plan: 'paid' });
    });

    it('tells a missing key from an invalid one, and refuses both when authenticating', async () => {
      const principals = createPrincipalService(db.storage.apiKeys, () => new Date());
      expect(await principals.lookup(undefined)).toBe('missing');
      expect(await principals.lookup('Basic abc')).toBe('missing');
      expect(await principals.lookup(`Bearer svc_${'x'.repeat(40)}`)).toBe('invalid');
      for (const [header, message] of [
        [undefined, 'missing API key'],
        [`Bearer svc_${'x'.repeat(40)}`, 'invalid API key'],
      ] as const) {
        const error = await principals.authenticate(header).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(DomainError);
        expect(error).toMatchObject({ code: 'unauthenticated', message });
      }
    });

    it("writes a key's last use at most once a minute", async () => {
      let now = new Date('2026-03-01T10:00:00Z');
      const principals = createPrincipalService(db.storage.apiKeys, () => now);
      const key = await keyFor('touch@example.test', 'free');
      const lastUsed = async () =>
        (await db.storage.apiKeys.findOwnerByKeyHash(hashApiKey(key)))?.key.lastUsedAt;
      await principals.authenticate(`Bearer ${key}`);
      expect(await lastUsed()).toEqual(new Date('2026-03-01T10:00:00Z'));
      now = new Date('2026-03-01T10:00:59Z');
      await principals.authenticate(`Bearer ${key}`);
      expect(await lastUsed()).toEqual(new Date('2026-03-01T10:00:00Z'));
      now = new Date('2026-03-01T10:01:00Z');
      await principals.authenticate(`Bearer ${key}`);
      expect(await lastUsed()).toEqual(new Date('2026-03-01T10:01:00Z'));
    });
  });
}
