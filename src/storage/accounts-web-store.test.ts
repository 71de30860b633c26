import { beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS, openTestDatabase, skipDialect, type TestDatabase } from '../../test/helpers/databases.js';
import { type Storage, StoreError } from './index.js';

const skipped = new Map(
  await Promise.all(DIALECTS.map(async (d) => [d, await skipDialect(d, 'sign-in storage tests')] as const)),
);

const minutes = (n: number) => n * 60_000;

for (const dialect of DIALECTS) {
  describe.skipIf(skipped.get(dialect))(`sign-in and dashboard storage on ${dialect}`, () => {
    let db: TestDatabase;
    let storage: Storage;

    beforeEach(async () => {
      db = await openTestDatabase(dialect);
      storage = db.storage;
      return () => db.cleanup();
    });

    it('creates a user with a password hash once per email, case-insensitively', async () => {
      const user = await storage.credentials.createUserWithPassword({
        email: 'Ada@Example.com',
        passwordHash: '$argon2id$fake',
      });
      expect(user.email).toBe('ada@example.com');
      await expect(
        storage.credentials.createUserWithPassword({ email: 'ada@example.com', passwordHash: 'x' }),
      ).rejects.toBeInstanceOf(StoreError);
      expect(await storage.credentials.findPasswordByEmail('ADA@example.com')).toMatchObject({
        user: { id: user.id },
        passwordHash: '$argon2id$fake',
      });
      expect(await storage.credentials.findPasswordByEmail('nobody@example.com')).toBeNull();
      // A user made by an operator has no password.
      await storage.accounts.createUser({ email: 'op@example.com' });
      expect(await storage.credentials.findPasswordByEmail('op@example.com')).toMatchObject({
        passwordHash: null,
      });
    });

    it('links an external identity to one user, once', async () => {
      const user = await storage.accounts.createUser({ email: 'a@example.com' });
      expect(await storage.identities.findUserByIdentity('codehost-a', '42')).toBeNull();
      await storage.identities.linkIdentity({ provider: 'codehost-a', subject: '42', userId: user.id });
      expect(await storage.identities.findUserByIdentity('codehost-a', '42')).toMatchObject({ id: user.id });
      expect(await storage.identities.findUserByIdentity('other', '42')).toBeNull();
      await expect(
        storage.identities.linkIdentity({ provider: 'codehost-a', subject: '42', userId: user.id }),
      ).rejects.toMatchObject({ code: 'duplicate' });
    });

    it('keeps sessions by hash with their user and team, touches and deletes them', async () => {
      const user = await storage.accounts.createUser({ email: 's@example.com', plan: 'paid' });
      const at = new Date('2026-01-01T00:00:00Z');
      await storage.sessions.createSession({ idHash: 'h1', userId: user.id, at });
      const owner = await storage.sessions.findSessionOwner('h1');
      expect(owner).toMatchObject({ user: { id: user.id, plan: 'paid' }, team: null });
      expect(owner?.session.lastSeenAt.toISOString()).toBe(at.toISOString());
      expect(await storage.sessions.findSessionOwner('h2')).toBeNull();

      await storage.accounts.createTeam({ name: 't', plan: 'free' });
      await storage.accounts.addTeamMember('t', 's@example.com');
      expect((await storage.sessions.findSessionOwner('h1'))?.team).toMatchObject({ name: 't' });

      const later = new Date(at.getTime() + minutes(5));
      await storage.sessions.touchSession('h1', later);
      expect((await storage.sessions.findSessionOwner('h1'))?.session.lastSeenAt.toISOString()).toBe(
        later.toISOString(),
      );
      await storage.sessions.createSession({ idHash: 'old', userId: user.id, at });
      expect(await storage.sessions.deleteSessionsIdleSince(new Date(at.getTime() + minutes(1)))).toBe(1);
      expect(await storage.sessions.findSessionOwner('old')).toBeNull();
      await storage.sessions.deleteSession('h1');
      expect(await storage.sessions.findSessionOwner('h1')).toBeNull();
    });

    it('hands out an OAuth state once, and drops abandoned ones', async () => {
      const at = new Date('2026-01-01T00:00:00Z');
      await storage.oauthStates.saveOAuthState({ stateHash: 's1', verifier: 'v1', at });
      await storage.oauthStates.saveOAuthState({ stateHash: 's2', verifier: 'v2', at });
      const taken = await Promise.all([
        storage.oauthStates.takeOAuthState('s1'),
        storage.oauthStates.takeOAuthState('s1'),
      ]);
      expect(taken.filter((t) => t !== null)).toHaveLength(1);
      expect(taken.find((t) => t !== null)).toMatchObject({ verifier: 'v1' });
      expect(await storage.oauthStates.deleteOAuthStatesBefore(new Date(at.getTime() + 1))).toBe(1);
      expect(await storage.oauthStates.takeOAuthState('s2')).toBeNull();
    });

    it('keeps with an OAuth state the signed-in user who started it (null for a plain sign-in)', async () => {
      const at = new Date('2026-01-01T00:00:00Z');
      const user = await storage.accounts.createUser({ email: 'linker@example.com' });
      await storage.oauthStates.saveOAuthState({ stateHash: 'link', verifier: 'v', at, userId: user.id });
      await storage.oauthStates.saveOAuthState({ stateHash: 'plain', verifier: 'v', at });
      expect(await storage.oauthStates.takeOAuthState('link')).toMatchObject({
        verifier: 'v',
        userId: user.id,
      });
      expect(await storage.oauthStates.takeOAuthState('plain')).toMatchObject({
        verifier: 'v',
        userId: null,
      });
    });

    it('keeps roles, members and who set the hook mode', async () => {
      const owner = await storage.accounts.createUser({ email: 'owner@example.com' });
      const member = await storage.accounts.createUser({ email: 'member@example.com' });
      const team = await storage.accounts.createTeam({ name: 'crew' });
      await storage.accounts.addTeamMember('crew', owner.email, 'owner');
      await storage.accounts.addTeamMember('crew', member.email);
      expect(await storage.teams.membershipOf(member.id)).toMatchObject({
        team: { name: 'crew', hookMode: 'block' },
        role: 'member',
        hookModeSetBy: null,
      });
      expect((await storage.teams.listMembers(team.id)).map((m) => [m.user.email, m.role])).toEqual([
        ['member@example.com', 'member'],
        ['owner@example.com', 'owner'],
      ]);
      const at = new Date('2026-02-03T04:05:06Z');
      const changed = await storage.teams.setHookModeBy({
        teamId: team.id,
        mode: 'warn',
        userId: owner.id,
        at,
      });
      expect(changed.hookMode).toBe('warn');
      const seen = await storage.teams.membershipOf(member.id);
      expect(seen).toMatchObject({ team: { hookMode: 'warn' }, hookModeSetBy: 'owner@example.com' });
      expect(seen?.hookModeSetAt?.toISOString()).toBe(at.toISOString());
      // An operator's change forgets the user who set it.
      await storage.accounts.setTeamHookMode('crew', 'block');
      expect(await storage.teams.membershipOf(member.id)).toMatchObject({ hookModeSetBy: null });

      await storage.teams.setMemberRole(team.id, member.id, 'owner');
      expect((await storage.teams.membershipOf(member.id))?.role).toBe('owner');
      const stranger = await storage.accounts.createUser({ email: 'x@example.com' });
      await expect(storage.teams.setMemberRole(team.id, stranger.id, 'owner')).rejects.toMatchObject({
        code: 'not-found',
      });
      expect(await storage.teams.membershipOf(stranger.id)).toBeNull();
    });
  });
}
