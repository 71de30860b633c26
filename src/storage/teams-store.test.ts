import { beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS, openTestDatabase, skipDialect, type TestDatabase } from '../../test/helpers/databases.js';
import type { Storage } from './index.js';

const skipped = new Map(
  await Promise.all(DIALECTS.map(async (d) => [d, await skipDialect(d, 'team storage tests')] as const)),
);

const AT = new Date('2026-03-01T12:00:00Z');
const DAY = 24 * 60 * 60 * 1000;
const later = (ms: number) => new Date(AT.getTime() + ms);

for (const dialect of DIALECTS) {
  describe.skipIf(skipped.get(dialect))(`teams and invitations storage on ${dialect}`, () => {
    let db: TestDatabase;
    let storage: Storage;

    beforeEach(async () => {
      db = await openTestDatabase(dialect);
      storage = db.storage;
      return () => db.cleanup();
    });

    const user = (email: string) => storage.accounts.createUser({ email });
    async function teamOf(ownerEmail: string, name: string) {
      const owner = await user(ownerEmail);
      const result = await storage.teams.createTeamWithOwner({
        name,
        plan: 'paid',
        ownerId: owner.id,
        at: AT,
      });
      if (!('team' in result)) throw new Error(result.refused);
      return { owner, team: result.team };
    }

    it('creates a team with its owner in one step, refusing a taken name or a user in a team', async () => {
      const { owner, team } = await teamOf('o@example.com', 'crew');
      expect(team).toMatchObject({ name: 'crew', plan: 'paid', hookMode: 'block' });
      expect(await storage.teams.membershipOf(owner.id)).toMatchObject({
        role: 'owner',
        team: { id: team.id },
      });
      const other = await user('x@example.com');
      expect(
        await storage.teams.createTeamWithOwner({ name: 'crew', plan: 'free', ownerId: other.id, at: AT }),
      ).toEqual({ refused: 'name-taken' });
      expect(
        await storage.teams.createTeamWithOwner({ name: 'other', plan: 'free', ownerId: owner.id, at: AT }),
      ).toEqual({ refused: 'in-team' });
      expect(await storage.accounts.findTeamByName('other')).toBeNull();
      expect(await storage.teams.membershipOf(other.id)).toBeNull();
    });

    it('removes members keeping an owner while the team has members, and deletes an empty team', async () => {
      const { owner, team } = await teamOf('o@example.com', 'crew');
      const member = await user('m@example.com');
      await storage.accounts.addTeamMember('crew', member.email);
      const stranger = await user('s@example.com');
      expect(await storage.teams.removeMember(team.id, stranger.id)).toBe('not-member');
      expect(await storage.teams.removeMember(team.id, owner.id)).toBe('last-owner');
      expect(await storage.teams.membershipOf(owner.id)).not.toBeNull();
      await storage.teams.setMemberRole(team.id, member.id, 'owner');
      expect(await storage.teams.removeMember(team.id, owner.id)).toBe('removed');
      expect(await storage.teams.membershipOf(owner.id)).toBeNull();
      await storage.invitations.createInvitation({
        teamId: team.id,
        tokenHash: 'h-left',
        createdBy: member.id,
        at: AT,
        expiresAt: later(7 * DAY),
      });
      expect(await storage.teams.removeMember(team.id, member.id)).toBe('team-deleted');
      expect(await storage.accounts.findTeamByName('crew')).toBeNull();
      expect(await storage.invitations.findInvitation('h-left')).toBeNull();
      expect(await storage.teams.removeMember(team.id, member.id)).toBe('not-member');
    });

    it('keeps invitations by hash: pending ones listed, revoked, and each accepted once', async () => {
      const { owner, team } = await teamOf('o@example.com', 'crew');
      const make = (tokenHash: string, expiresAt = later(7 * DAY)) =>
        storage.invitations.createInvitation({
          teamId: team.id,
          tokenHash,
          createdBy: owner.id,
          at: AT,
          expiresAt,
        });
      const first = await make('h1');
      expect(first).toMatchObject({
        teamId: team.id,
        createdBy: 'o@example.com',
        usedAt: null,
        revokedAt: null,
      });
      expect(first.expiresAt.toISOString()).toBe(later(7 * DAY).toISOString());
      const second = await make('h2');
      await make('h3', later(DAY));
      expect(
        (await storage.invitations.pendingInvitations(team.id, later(2 * DAY))).map((i) => i.id),
      ).toEqual([second.id, first.id]);
      expect(await storage.invitations.revokeInvitation({ teamId: team.id + 1, id: second.id, at: AT })).toBe(
        false,
      );
      expect(await storage.invitations.revokeInvitation({ teamId: team.id, id: second.id, at: AT })).toBe(
        true,
      );
      expect(await storage.invitations.revokeInvitation({ teamId: team.id, id: second.id, at: AT })).toBe(
        false,
      );
      expect(await storage.invitations.findInvitation('h2')).toMatchObject({ teamName: 'crew' });

      const joiner = await user('j@example.com');
      const accept = (tokenHash: string, userId = joiner.id, at = later(DAY / 2)) =>
        storage.invitations.acceptInvitation({ tokenHash, userId, at });
      expect(await accept('nope')).toEqual({ refused: 'unknown' });
      expect(await accept('h2')).toEqual({ refused: 'revoked' });
      expect(await accept('h3', joiner.id, later(DAY))).toEqual({ refused: 'expired' });
      // A user in a team is refused, and the invitation stays unused.
      expect(await accept('h1', owner.id)).toEqual({ refused: 'in-team' });
      expect((await storage.invitations.findInvitation('h1'))?.usedAt).toBeNull();
      expect(await accept('h1')).toMatchObject({ team: { id: team.id } });
      expect(await storage.teams.membershipOf(joiner.id)).toMatchObject({ role: 'member' });
      expect((await storage.invitations.findInvitation('h1'))?.usedAt).not.toBeNull();
      const late = await user('l@example.com');
      expect(await accept('h1', late.id)).toEqual({ refused: 'used' });
      expect(await storage.invitations.pendingInvitations(team.id, later(2 * DAY))).toEqual([]);
    });

    it('lets exactly one of two people racing with one link in', async () => {
      const { owner, team } = await teamOf('o@example.com', 'crew');
      await storage.invitations.createInvitation({
        teamId: team.id,
        tokenHash: 'race',
        createdBy: owner.id,
        at: AT,
        expiresAt: later(DAY),
      });
      // PostgreSQL: another pool, as another instance would be. SQLite: the same connection (a second
      // one in this process would block the thread in its busy wait; processes each have their own).
      const other = dialect === 'postgres' ? await db.open() : storage;
      const [a, b] = await Promise.all([user('a@example.com'), user('b@example.com')]);
      const results = await Promise.all([
        storage.invitations.acceptInvitation({ tokenHash: 'race', userId: a.id, at: AT }),
        other.invitations.acceptInvitation({ tokenHash: 'race', userId: b.id, at: AT }),
      ]);
      expect(results.filter((r) => 'team' in r)).toHaveLength(1);
      expect(results.filter((r) => 'refused' in r)).toEqual([{ refused: 'used' }]);
      expect((await storage.teams.listMembers(team.id)).map((m) => m.user.email).sort()).toHaveLength(2);
    });
  });
}
