import type { InvitationPreview } from '../../services/team-invitations.js';
import type { Team } from '../../storage/index.js';
import { Layout, Notice, when } from '../layout.js';

export interface InvitationProps {
  email: string;
  /** The link's token, posted back by the Accept form (never shown). */
  token: string;
  /** The invitation, when the link can still be used. */
  invitation?: InvitationPreview;
  /** The team the signed-in user is in now, if any. */
  currentTeam: Team | null;
  error?: string;
}

/** An invitation link opened by a signed-in user: which team, who invited, and Accept (a form post). */
export function InvitationPage(props: InvitationProps) {
  const { invitation, currentTeam } = props;
  const already = invitation !== undefined && currentTeam?.name === invitation.teamName;
  return (
    <Layout title="Team invitation" email={props.email} current="/dashboard/team">
      <h1>Team invitation</h1>
      <Notice kind="error" text={props.error} />
      {invitation === undefined ? (
        <p>
          <a href="/dashboard/team">Go to the Team page</a>
        </p>
      ) : (
        <section class="card" aria-labelledby="invitation-title">
          <h2 id="invitation-title">Join {invitation.teamName}</h2>
          <p>
            {invitation.invitedBy ?? 'A team owner'} invited you to join{' '}
            <strong>{invitation.teamName}</strong>. As a member you work on the team's plan, and the team's
            hook mode applies to your agents.
          </p>
          <p class="muted">The invitation works once, until {when(invitation.expiresAt)}.</p>
          {already ? (
            <p>
              You are a member of {invitation.teamName} already.{' '}
              <a href="/dashboard/team">Go to the Team page</a>
            </p>
          ) : currentTeam !== null ? (
            <p role="alert" class="notice error">
              You are in the team {currentTeam.name}. A user is in one team at a time: leave it on the{' '}
              <a href="/dashboard/team">Team page</a> first, then open this link again.
            </p>
          ) : (
            <form method="post" action="/dashboard/join" class="actions">
              <input type="hidden" name="token" value={props.token} />
              <button type="submit">Accept and join {invitation.teamName}</button>
              <a class="button secondary" href="/dashboard">
                Not now
              </a>
            </form>
          )}
        </section>
      )}
    </Layout>
  );
}
