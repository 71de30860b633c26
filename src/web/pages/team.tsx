import type { TeamView } from '../../services/team.js';
import type { InvitationRecord, TeamMember } from '../../storage/index.js';
import { DataTable, Layout, Notice, when } from '../layout.js';

const MODE_WORDS = {
  block: 'Block: a risky install is denied.',
  warn: 'Warn: the agent asks you before a risky install.',
} as const;

export interface TeamProps {
  email: string;
  /** The signed-in user's id: their own row has no actions. */
  userId: number;
  view: TeamView | null;
  /** An owner's open invitations. */
  invitations: InvitationRecord[];
  /** A link just made: shown on this page once, never again. */
  createdLink?: { url: string; expiresAt: Date };
  /** The team name typed before an error. */
  name?: string;
  error?: string;
  info?: string;
}

/**
 * The team: create one (outside any team); members and the hook mode; for owners, invitation links,
 * making owners and removing members; leaving.
 */
export function TeamPage(props: TeamProps) {
  const { view } = props;
  return (
    <Layout title="Team" email={props.email} current="/dashboard/team">
      <h1>Team</h1>
      <Notice kind="error" text={props.error} />
      <Notice kind="ok" text={props.info} />
      {view === null ? <CreateTeam name={props.name} /> : <TeamSections {...props} view={view} />}
    </Layout>
  );
}

function CreateTeam(props: { name: string | undefined }) {
  return (
    <section class="card" aria-labelledby="create-team-title">
      <h2 id="create-team-title">Create a team</h2>
      <p>
        You are not in a team. Create one and invite your colleagues: the team shares one plan and one hook
        mode. You become its owner. To join a colleague's team instead, open the invitation link they send
        you.
      </p>
      <form method="post" action="/dashboard/team">
        <label for="team-name">Team name</label>
        <input
          id="team-name"
          name="name"
          type="text"
          required
          maxlength={64}
          value={props.name}
          aria-describedby="team-name-hint"
        />
        <p class="hint" id="team-name-hint">
          Up to 64 characters; no other team may have it.
        </p>
        <button type="submit">Create team</button>
      </form>
    </section>
  );
}

function TeamSections(props: TeamProps & { view: TeamView }) {
  const { view } = props;
  const owner = view.role === 'owner';
  // The Actions column only when there is someone to act on (an owner's own row has none).
  const actions = owner && view.members.length > 1;
  return (
    <>
      {props.createdLink === undefined ? null : (
        <section class="card" aria-labelledby="new-link-title">
          <div class="copy-row">
            <h2 id="new-link-title">Your new invitation link</h2>
            <button type="button" class="secondary" data-copy="new-link" hidden>
              Copy
            </button>
          </div>
          <p>
            Copy it now: it is shown only this once. Send it to one colleague; it works once, until{' '}
            {when(props.createdLink.expiresAt)}.
          </p>
          <p>
            <code id="new-link" class="secret">
              {props.createdLink.url}
            </code>
          </p>
        </section>
      )}
      <section class="card" aria-labelledby="mode-title">
        <h2 id="mode-title">Hook mode of {view.team.name}</h2>
        <p>
          <strong>{MODE_WORDS[view.team.hookMode]}</strong>
        </p>
        <p class="muted">
          {view.hookModeSetAt === null
            ? 'Set when the team was created.'
            : `Set by ${view.hookModeSetBy ?? 'an operator'} on ${when(view.hookModeSetAt)}.`}
        </p>
        {owner ? (
          <form method="post" action="/dashboard/team/mode">
            <fieldset>
              <legend>Change the mode for every member</legend>
              {(['block', 'warn'] as const).map((mode) => (
                <label>
                  <input type="radio" name="mode" value={mode} checked={view.team.hookMode === mode} />
                  {MODE_WORDS[mode]}
                </label>
              ))}
            </fieldset>
            <button type="submit">Save mode</button>
          </form>
        ) : (
          <p class="muted">Only a team owner can change it.</p>
        )}
      </section>
      <section class="card" aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        <DataTable
          headings={['Email', 'Role', 'Joined', ...(actions ? ['Actions'] : [])]}
          rows={view.members.map((m) => [
            <>
              {m.user.email}
              {m.user.id === props.userId ? <span class="muted"> (you)</span> : null}
            </>,
            m.role,
            when(m.joinedAt),
            ...(actions ? [<MemberActions member={m} self={m.user.id === props.userId} />] : []),
          ])}
        />
      </section>
      {owner ? <Invitations invitations={props.invitations} /> : null}
      <section class="card" aria-labelledby="leave-title">
        <h2 id="leave-title">Leave {view.team.name}</h2>
        <LeaveNote view={view} />
      </section>
    </>
  );
}

/** An owner's buttons on another member's row: make them an owner, remove them (asks first). */
function MemberActions(props: { member: TeamMember; self: boolean }) {
  const { member, self } = props;
  if (self) return null;
  return (
    <div class="actions">
      {member.role === 'owner' ? null : (
        <form method="post" action="/dashboard/team/owners">
          <input type="hidden" name="member" value={String(member.user.id)} />
          <button type="submit" class="secondary" aria-label={`Make ${member.user.email} an owner`}>
            Make owner
          </button>
        </form>
      )}
      <form method="get" action="/dashboard/team/remove">
        <input type="hidden" name="member" value={String(member.user.id)} />
        <button type="submit" class="danger" aria-label={`Remove ${member.user.email}`}>
          Remove
        </button>
      </form>
    </div>
  );
}

/** What leaving does for this user, and the way to it (none for the last owner while others remain). */
function LeaveNote(props: { view: TeamView }) {
  const { view } = props;
  const owners = view.members.filter((m) => m.role === 'owner').length;
  if (view.members.length > 1 && view.role === 'owner' && owners === 1) {
    return (
      <p class="muted">
        You are its only owner: make another member an owner first (Members, above), then you can leave.
      </p>
    );
  }
  return (
    <>
      <p class="muted">
        {view.members.length === 1
          ? 'You are its only member: leaving deletes the team and its open invitations.'
          : 'Your API keys keep working, on your own plan and in block mode. To come back you need a new invitation.'}
      </p>
      <form method="get" action="/dashboard/team/leave">
        <button type="submit" class="danger">
          Leave team
        </button>
      </form>
    </>
  );
}

function Invitations(props: { invitations: InvitationRecord[] }) {
  return (
    <section class="card" aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      <p>
        An invitation link lets one person join this team. It works once, for 7 days; whoever opens it signs
        in or creates an account, then accepts.
      </p>
      <form method="post" action="/dashboard/team/invitations">
        <button type="submit">Create invitation link</button>
      </form>
      <h3 class="subhead">Open invitations</h3>
      {props.invitations.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <DataTable
          headings={['Created', 'By', 'Expires', 'Action']}
          rows={props.invitations.map((i) => [
            when(i.createdAt),
            i.createdBy ?? 'a former member',
            when(i.expiresAt),
            <form method="post" action="/dashboard/team/invitations/revoke">
              <input type="hidden" name="id" value={String(i.id)} />
              <button
                type="submit"
                class="danger"
                aria-label={`Revoke invitation ${i.id}, created ${when(i.createdAt)}`}
              >
                Revoke
              </button>
            </form>,
          ])}
        />
      )}
    </section>
  );
}
