import { generateSessionId, hashToken, looksLikeSessionId } from '../auth/session-ids.js';
import type {
  InvitationRecord,
  InvitationRefusal,
  InvitationRepository,
  Team,
  TeamRepository,
} from '../storage/index.js';
import { DomainError, notFound } from './errors.js';
import { idOf, ownersTeamOf } from './team.js';
import type { Principal } from './vocabulary.js';

/** How long an invitation link works (contract 6). */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** An invitation as the person holding its link sees it before accepting. */
export interface InvitationPreview {
  teamName: string;
  /** The owner who made it; null once that user is gone. */
  invitedBy: string | null;
  expiresAt: Date;
}

/** Single-use invitation links into a team (contract 6): owners make, list and revoke them. */
export interface InvitationService {
  /** A new link's token (shown once; stored only as its SHA-256), valid 7 days. Owners only. */
  invite(principal: Principal): Promise<{ token: string; invitation: InvitationRecord }>;
  /** The caller's team's invitations still open. Owners only. */
  pending(principal: Principal): Promise<InvitationRecord[]>;
  /** Revokes an open invitation of the caller's team. Owners only. */
  revoke(principal: Principal, id: unknown): Promise<void>;
  /** Who invites to which team; not-found (saying why) for an unknown, expired, used or revoked link. */
  preview(token: unknown): Promise<InvitationPreview>;
  /** The caller joins the team and the link is used up; refused for a user in a team (leave first). */
  accept(principal: Principal, token: unknown): Promise<Team>;
}

const REFUSALS: Record<InvitationRefusal, string> = {
  unknown: 'this invitation link is not valid: check that you copied all of it, or ask for a new one',
  expired: 'this invitation has expired (links work for 7 days): ask a team owner for a new one',
  used: 'this invitation has been used already (each link works once): ask a team owner for a new one',
  revoked: 'this invitation was revoked by a team owner: ask them for a new one',
  'in-team': 'you are in a team already: leave it on the Team page first, then open the link again',
};

const refused = (why: InvitationRefusal) =>
  new DomainError(why === 'in-team' ? 'conflict' : 'not-found', REFUSALS[why]);

export function createInvitationService(deps: {
  invitations: InvitationRepository;
  teams: TeamRepository;
  now: () => Date;
}): InvitationService {
  const { invitations, teams, now } = deps;
  const ownersTeam = (principal: Principal, what: string) => ownersTeamOf(teams, principal, what);
  const hashOf = (token: unknown) =>
    typeof token === 'string' && looksLikeSessionId(token) ? hashToken(token) : null;

  return {
    async invite(principal) {
      const team = await ownersTeam(principal, 'invite people');
      const token = generateSessionId();
      const at = now();
      const invitation = await invitations.createInvitation({
        teamId: team.id,
        tokenHash: hashToken(token),
        createdBy: principal.user.id,
        at,
        expiresAt: new Date(at.getTime() + INVITATION_TTL_MS),
      });
      return { token, invitation };
    },

    async pending(principal) {
      const team = await ownersTeam(principal, 'see invitations');
      return invitations.pendingInvitations(team.id, now());
    },

    async revoke(principal, id) {
      const team = await ownersTeam(principal, 'revoke invitations');
      const number = idOf(id);
      const done =
        Number.isSafeInteger(number) &&
        (await invitations.revokeInvitation({ teamId: team.id, id: number, at: now() }));
      if (!done) throw notFound('no such open invitation: it may have been used or revoked already');
    },

    async preview(token) {
      const hash = hashOf(token);
      const found = hash === null ? null : await invitations.findInvitation(hash);
      if (found === null) throw refused('unknown');
      if (found.revokedAt !== null) throw refused('revoked');
      if (found.usedAt !== null) throw refused('used');
      if (found.expiresAt.getTime() <= now().getTime()) throw refused('expired');
      return { teamName: found.teamName, invitedBy: found.createdBy, expiresAt: found.expiresAt };
    },

    async accept(principal, token) {
      const hash = hashOf(token);
      if (hash === null) throw refused('unknown');
      const result = await invitations.acceptInvitation({
        tokenHash: hash,
        userId: principal.user.id,
        at: now(),
      });
      if ('refused' in result) throw refused(result.refused);
      return result.team;
    },
  };
}

/** What an invitation token looks like (a session id's shape: 32 random bytes, base64url); anything else is not looked up. */
export const looksLikeInvitationToken = looksLikeSessionId;
