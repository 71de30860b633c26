import type { TeamView } from '../../services/team.js';
import { DataTable, Layout, Notice, when } from '../layout.js';

const MODE_WORDS = {
  block: 'Block: a risky install is denied.',
  warn: 'Warn: the agent asks you before a risky install.',
} as const;

export interface TeamProps {
  email: string;
  view: TeamView | null;
  error?: string;
  info?: string;
}

/** Members and the hook mode: owners switch it, members see it and who set it. */
export function TeamPage(props: TeamProps) {
  const { view } = props;
  return (
    <Layout title="Team" email={props.email} current="/dashboard/team">
      <h1>Team</h1>
      <Notice kind="error" text={props.error} />
      <Notice kind="ok" text={props.info} />
      {view === null ? (
        <section class="card">
          <p>You are not in a team. An operator adds you to one (svc admin add-member).</p>
        </section>
      ) : (
        <>
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
            {view.role === 'owner' ? (
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
              headings={['Email', 'Role', 'Joined']}
              rows={view.members.map((m) => [m.user.email, m.role, when(m.joinedAt)])}
            />
          </section>
        </>
      )}
    </Layout>
  );
}
