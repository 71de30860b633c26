import { beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS, openTestDatabase, skipDialect, type TestDatabase } from '../../test/helpers/databases.js';
import { hashToken } from '../auth/session-ids.js';
import type { User } from '../storage/index.js';
import { createTeamService, MAX_TEAM_NAME_LENGTH, type TeamService, teamName } from './team.js';
import { createInvitationService, INVITATION_TTL_MS, type InvitationService } from './team-invitations.js';
import { effectivePlan, type Principal } from './vocabulary.js';

const skipped = new Map(
  await Promise.all(DIALECTS.map(async (d) => [d, await skipDialect(d, 'team service tests')] as const)),
);

describe('team names', () => {
  it('trims plain spaces, composes, and refuses blank, invisible and long names', () => {
    expect(teamName('  crew  ')).toBe('crew');
    expect(teamName('cafe\u0301')).toBe('caf\u00e9');
    expect(teamName('x'.repeat(MAX_TEAM_NAME_LENGTH))).toHaveLength(MAX_TEAM_NAME_LENGTH);
    for (const bad of ['', '   ', 'a\u200bb', 'a\u202eb', 'a\nb', 'x'.repeat(MAX_TEAM_NAME_LENGTH + 1), 42]) {
      expect(() => teamName(bad)).toThrowError(expect.objectContaining({ code: 'invalid-input' }));
    }
  });
});

for (const dialect of DIALECTS) {
  describe.skipIf(skipped.get(dialect))(`teams in the dashboard on ${dialect}`, () => {
    let db: TestDatabase;
    let clock: Date;
    let team: TeamService;
    let invitations: InvitationService;

    beforeEach(async () => {
      db = await openTestDatabase(dialect);
      clock = new Date('2026-05-01T00:00:00Z');
      const now = () => clock;
      team = createTeamService(db.storage.teams, now);
      invitations = createInvitationService({
        invitations: db.storage.invitations,
        teams: db.storage.teams,
        now,
      });
      return () => db.cleanup();
    });

    /** A principal as a session gives it: the user's team and effective plan read now. */
    async function principal(user: User): Promise<Principal> {
      const t = await db.storage.accounts.findTeamOfUser(user.id);
      return { user, key: null, team: t, plan: effectivePlan(user, t) };
    }
    const user = (email: string, plan: 'free' | 'paid' = 'free') =>
      db.storage.accounts.createUser({ email, plan });

    it('a paid user creates a paid team; an invited free user then works on the paid plan', async () => {
      const owner = await user('o@example.com', 'paid');
      const created = await team.createTeam(await principal(owner), ' crew ');
      expect(created).toMatchObject({ name: 'crew', plan: 'paid', hookMode: 'block' });
      await expect(team.createTeam(await principal(owner), 'again')).rejects.toMatchObject({
        code: 'conflict',
      });

      const { token, invitation } = await invitations.invite(await principal(owner));
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(invitation.expiresAt.getTime() - clock.getTime()).toBe(INVITATION_TTL_MS);
      // Stored only hashed.
      expect(await db.storage.invitations.findInvitation(token)).toBeNull();
      expect(await db.storage.invitations.findInvitation(hashToken(token))).toMatchObject({
        teamName: 'crew',
      });
      expect(await invitations.preview(token)).toMatchObject({
        teamName: 'crew',
        invitedBy: 'o@example.com',
      });

      const colleague = await user('c@example.com');
      expect((await principal(colleague)).plan).toBe('free');
      expect(await invitations.accept(await principal(colleague), token)).toMatchObject({ name: 'crew' });
      expect((await principal(colleague)).plan).toBe('paid');
      await expect(invitations.preview(token)).rejects.toMatchObject({ code: 'not-found' });
    });

    it('only owners invite, revoke, make owners and remove; members leave', async () => {
      const owner = await user('o@example.com');
      await team.createTeam(await principal(owner), 'crew');
      const { token } = await invitations.invite(await principal(owner));
      const member = await user('m@example.com');
      await invitations.accept(await principal(member), token);
      const m = await principal(member);
      const ownerId = String(owner.id);
      for (const call of [
        () => invitations.invite(m),
        () => invitations.pending(m),
        () => invitations.revoke(m, '1'),
        () => team.makeOwner(m, ownerId),
        () => team.removeMember(m, ownerId),
        () => team.memberOf(m, ownerId),
        () => team.setMode(m, 'warn'),
      ]) {
        await expect(call()).rejects.toMatchObject({ code: 'forbidden' });
      }
      const outsider = await principal(await user('x@example.com'));
      await expect(invitations.invite(outsider)).rejects.toMatchObject({ code: 'not-found' });
      await expect(team.leave(outsider)).rejects.toMatchObject({ code: 'not-found' });

      const o = await principal(owner);
      await expect(team.removeMember(o, ownerId)).rejects.toMatchObject({ code: 'invalid-input' });
      await expect(team.leave(o)).rejects.toMatchObject({ code: 'conflict' });
      expect(await team.makeOwner(o, String(member.id))).toMatchObject({ role: 'owner' });
      expect(await team.leave(o)).toMatchObject({ deleted: false });
      // The new owner is alone now: leaving deletes the team.
      expect(await team.leave(await principal(member))).toMatchObject({ deleted: true });
      expect(await db.storage.accounts.findTeamByName('crew')).toBeNull();
    });

    it('an invitation expires after 7 days, and a revoked one is refused', async () => {
      const owner = await user('o@example.com');
      await team.createTeam(await principal(owner), 'crew');
      const o = await principal(owner);
      const { token } = await invitations.invite(o);
      const { token: revoked, invitation } = await invitations.invite(o);
      await invitations.revoke(o, String(invitation.id));
      await expect(invitations.revoke(o, String(invitation.id))).rejects.toMatchObject({ code: 'not-found' });
      const joiner = await principal(await user('j@example.com'));
      await expect(invitations.accept(joiner, revoked)).rejects.toThrow(/revoked/);
      clock = new Date(clock.getTime() + INVITATION_TTL_MS - 1);
      expect(await invitations.preview(token)).toMatchObject({ teamName: 'crew' });
      clock = new Date(clock.getTime() + 1);
      await expect(invitations.preview(token)).rejects.toThrow(/expired/);
      await expect(invitations.accept(joiner, token)).rejects.toThrow(/expired/);
      await expect(invitations.accept(joiner, 'not a token')).rejects.toThrow(/not valid/);
      expect(await invitations.pending(o)).toEqual([]);
    });
  });
}
