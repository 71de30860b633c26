import { type Context, Hono } from 'hono';
import type { AppDeps } from '../server/deps.js';
import type { Principal } from '../services/vocabulary.js';
import { forgetInvitation, JOIN_PATH, keptInvitation } from './invitation-cookie.js';
import { attempt, formFields } from './page-support.js';
import { ConfirmPage, type ConfirmProps } from './pages/confirm.js';
import { InvitationPage } from './pages/invitation.js';
import { TeamPage, type TeamProps } from './pages/team.js';

type PageEnv = { Variables: { principal: Principal } };
type Status = 200 | 400 | 401 | 403 | 404 | 409 | 429 | 503;

/** What the team page says after an action (fixed texts: nothing from the URL is echoed). */
const DONE: Record<string, string> = {
  created: 'Team created. You are its owner: invite your colleagues with a link below.',
  joined: 'You joined the team.',
  owner: 'The member is now an owner.',
  removed: 'The member was removed from the team.',
  left: 'You left the team.',
  deleted: 'You left the team. It had no other members, so it was deleted.',
  revoked: 'Invitation revoked.',
};

/**
 * The team pages under `/dashboard` (contract 6), behind the dashboard's session and Origin checks:
 * create a team, invitation links (make, list, revoke; open and accept), make an owner, remove a
 * member (after a confirmation page), leave, and the hook mode. Every rule is the services' own.
 */
export function teamRoutes(deps: AppDeps) {
  const { baseUrl } = deps.config;
  const app = new Hono<PageEnv>();
  const principalOf = (c: Context<PageEnv>) => c.get('principal');

  const teamPage = async (
    c: Context<PageEnv>,
    props: Omit<TeamProps, 'email' | 'userId' | 'view' | 'invitations'>,
    status: Status = 200,
  ) => {
    const principal = principalOf(c);
    const view = await deps.team.teamOf(principal);
    const invitations = view?.role === 'owner' ? await deps.invitations.pending(principal) : [];
    return c.html(
      <TeamPage
        email={principal.user.email}
        userId={principal.user.id}
        view={view}
        invitations={invitations}
        {...props}
      />,
      status,
    );
  };
  /** The second step of removing or leaving (pages/confirm.tsx); Cancel goes back to the team page. */
  const confirmPage = (c: Context<PageEnv>, props: Omit<ConfirmProps, 'email' | 'current' | 'cancelHref'>) =>
    c.html(
      <ConfirmPage
        email={principalOf(c).user.email}
        current="/dashboard/team"
        cancelHref="/dashboard/team"
        {...props}
      />,
    );
  const done = (c: Context, what: keyof typeof DONE) => c.redirect(`/dashboard/team?done=${what}`, 303);

  /** A form post that runs one team action: its error on the team page, else the team page saying `after`. */
  const action =
    <T,>(
      run: (principal: Principal, field: (name: string) => string) => Promise<T>,
      after: keyof typeof DONE | ((result: T) => keyof typeof DONE),
    ) =>
    async (c: Context<PageEnv>) => {
      const field = await formFields(c);
      const result = await attempt(() => run(principalOf(c), field));
      if (!result.ok) return teamPage(c, { error: result.message }, result.status);
      return done(c, typeof after === 'string' ? after : after(result.value));
    };

  app.get('/team', (c) => {
    const info = c.req.query('saved') === '1' ? 'Hook mode saved.' : DONE[c.req.query('done') ?? ''];
    return teamPage(c, { info });
  });
  app.post('/team/mode', async (c) => {
    const mode = (await formFields(c))('mode');
    const result = await attempt(() => deps.team.setMode(principalOf(c), mode));
    if (!result.ok) return teamPage(c, { error: result.message }, result.status);
    return c.redirect('/dashboard/team?saved=1', 303);
  });

  app.post('/team', async (c) => {
    const name = (await formFields(c))('name');
    const result = await attempt(() => deps.team.createTeam(principalOf(c), name));
    if (!result.ok) return teamPage(c, { error: result.message, name }, result.status);
    return done(c, 'created');
  });

  // The link is on this answer only (like a new API key): no redirect to a page that could show it again.
  app.post('/team/invitations', async (c) => {
    const result = await attempt(() => deps.invitations.invite(principalOf(c)));
    if (!result.ok) return teamPage(c, { error: result.message }, result.status);
    const { token, invitation } = result.value;
    const url = `${baseUrl}${JOIN_PATH}?token=${token}`;
    return teamPage(c, { createdLink: { url, expiresAt: invitation.expiresAt } });
  });
  app.post(
    '/team/invitations/revoke',
    action((principal, field) => deps.invitations.revoke(principal, field('id')), 'revoked'),
  );

  app.post(
    '/team/owners',
    action((principal, field) => deps.team.makeOwner(principal, field('member')), 'owner'),
  );

  // Removing and leaving ask first (as revoking a key does): the team page's buttons open these
  // pages; only their forms, which add confirm=1, act. Works without JavaScript.
  const confirmRemove = async (c: Context<PageEnv>, memberId: string | undefined) => {
    const principal = principalOf(c);
    const result = await attempt(() => deps.team.memberOf(principal, memberId));
    if (!result.ok) return teamPage(c, { error: result.message }, result.status);
    const member = result.value;
    const team = principal.team?.name ?? 'the team';
    return confirmPage(c, {
      question: `Remove ${member.user.email} from ${team}?`,
      consequence: `${member.user.email} leaves ${team} at once: the team's plan and hook mode no longer apply to them, and their API keys go on with their own plan. To come back they need a new invitation.`,
      action: '/dashboard/team/remove',
      fields: { member: String(member.user.id) },
      confirmLabel: `Remove ${member.user.email}`,
    });
  };
  app.get('/team/remove', (c) => confirmRemove(c, c.req.query('member')));
  const remove = action((principal, field) => deps.team.removeMember(principal, field('member')), 'removed');
  app.post('/team/remove', async (c) => {
    const field = await formFields(c);
    return field('confirm') === '1' ? remove(c) : confirmRemove(c, field('member'));
  });

  const confirmLeave = async (c: Context<PageEnv>) => {
    const view = await deps.team.teamOf(principalOf(c));
    if (view === null) return c.redirect('/dashboard/team', 303);
    const alone = view.members.length === 1;
    return confirmPage(c, {
      question: `Leave ${view.team.name}?`,
      consequence: alone
        ? `You are the only member of ${view.team.name}: leaving deletes the team and its open invitations.`
        : `The team's plan and hook mode no longer apply to you; your API keys go on with your own plan. To come back you need a new invitation.`,
      action: '/dashboard/team/leave',
      fields: {},
      confirmLabel: `Leave ${view.team.name}`,
    });
  };
  app.get('/team/leave', (c) => confirmLeave(c));
  const leave = action(
    (principal) => deps.team.leave(principal),
    (left) => (left.deleted ? 'deleted' : 'left'),
  );
  app.post('/team/leave', async (c) => {
    const field = await formFields(c);
    return field('confirm') === '1' ? leave(c) : confirmLeave(c);
  });

  // An invitation link. A GET only shows it; joining is the Accept form's post (Origin-checked).
  app.get('/join', async (c) => {
    const principal = principalOf(c);
    const token = c.req.query('token') ?? keptInvitation(c, baseUrl) ?? '';
    forgetInvitation(c, baseUrl);
    const result = await attempt(() => deps.invitations.preview(token));
    const page = (status: Status, props: { error?: string }) =>
      c.html(
        <InvitationPage
          email={principal.user.email}
          token={token}
          invitation={result.ok ? result.value : undefined}
          currentTeam={principal.team}
          {...props}
        />,
        status,
      );
    return result.ok ? page(200, {}) : page(result.status, { error: result.message });
  });
  app.post('/join', async (c) => {
    const principal = principalOf(c);
    const token = (await formFields(c))('token');
    const result = await attempt(() => deps.invitations.accept(principal, token));
    if (result.ok) return done(c, 'joined');
    return c.html(
      <InvitationPage
        email={principal.user.email}
        token=""
        currentTeam={principal.team}
        error={result.message}
      />,
      result.status,
    );
  });

  return app;
}
