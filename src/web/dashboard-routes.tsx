import { type Context, Hono } from 'hono';
import type { AppDeps } from '../server/deps.js';
import { requireOwnOrigin } from '../server/middleware/same-origin.js';
import { clearSessionCookie, sessionIdOf, setSessionCookie } from '../server/middleware/session-cookie.js';
import { codehostAWorkflow, codehostBInclude } from '../services/ci-setup.js';
import { DomainError } from '../services/errors.js';
import { hookSetupFor } from '../services/hook-config.js';
import { mcpClientSetups } from '../services/mcp-client-config.js';
import { findingGroupsOf, summaryOf } from '../services/scans.js';
import { SESSION_EXPIRED } from '../services/sessions.js';
import type { Principal } from '../services/vocabulary.js';
import { accountRoutes } from './account-routes.js';
import { keepInvitation } from './invitation-cookie.js';
import { attempt, formFields } from './page-support.js';
import { ConfirmPage } from './pages/confirm.js';
import { KeysPage, type KeysProps } from './pages/keys.js';
import { OverviewPage } from './pages/overview.js';
import { ScanPage } from './pages/scan.js';
import { ScansPage, type ScansProps } from './pages/scans.js';
import { SetupPage } from './pages/setup.js';
import { teamRoutes } from './team-routes.js';

type PageEnv = { Variables: { principal: Principal } };
type Status = 200 | 400 | 401 | 403 | 404 | 409 | 429 | 503;

/**
 * `/dashboard/*`: the signed-in pages. Without a valid session a page sends the browser to sign in
 * (saying so when the session expired); a form post must come from the service's own origin.
 */
export function dashboardRoutes(deps: AppDeps) {
  const { baseUrl } = deps.config;
  const app = new Hono<PageEnv>();

  app.use('*', async (c, next) => {
    const sessionId = sessionIdOf(c, baseUrl);
    try {
      c.set('principal', await deps.sessions.authenticate(sessionId));
    } catch (e) {
      if (!(e instanceof DomainError && e.code === 'unauthenticated')) throw e;
      if (sessionId !== undefined) clearSessionCookie(c, baseUrl);
      // An invitation link opened signed out: its token waits in a cookie, sign-in comes back to it.
      if (keepInvitation(c, baseUrl)) return c.redirect('/auth/signin?note=invite', 303);
      return c.redirect(e.message === SESSION_EXPIRED ? '/auth/signin?note=expired' : '/auth/signin', 303);
    }
    if (c.req.method === 'GET') {
      // The cookie's lifetime slides with the session's (30 days from the last visit).
      setSessionCookie(c, sessionId as string, baseUrl);
    } else {
      const checked = await attempt(async () => requireOwnOrigin(c, baseUrl));
      if (!checked.ok) return c.text(checked.message, checked.status);
    }
    await next();
  });

  const email = (c: Context<PageEnv>) => c.get('principal').user.email;

  const keysPage = async (
    c: Context<PageEnv>,
    props: Omit<KeysProps, 'email' | 'keys'>,
    status: Status = 200,
  ) =>
    c.html(
      <KeysPage email={email(c)} keys={await deps.apiKeys.list(c.get('principal'))} {...props} />,
      status,
    );

  const scansPage = async (
    c: Context<PageEnv>,
    props: Omit<ScansProps, 'email' | 'scans' | 'hosts'>,
    status: Status = 200,
  ) =>
    c.html(
      <ScansPage
        email={email(c)}
        scans={await deps.scans.list(c.get('principal'))}
        hosts={deps.scans.hosts}
        {...props}
      />,
      status,
    );

  app.get('/', async (c) =>
    c.html(
      <OverviewPage
        overview={await deps.overview.overviewOf(c.get('principal'))}
        linkA={await deps.oauthSignIn.canLink(c.get('principal').user)}
      />,
    ),
  );

  app.get('/keys', (c) => {
    const revoked = c.req.query('revoked');
    return keysPage(c, { info: revoked === undefined ? undefined : `Key ${revoked} revoked.` });
  });
  app.post('/keys', async (c) => {
    const field = await formFields(c);
    const result = await attempt(() => deps.apiKeys.create(c.get('principal'), field('name')));
    if (!result.ok) return keysPage(c, { error: result.message }, result.status);
    return keysPage(c, { created: { key: result.value.key, name: result.value.name } });
  });
  // Revoking asks first (contract 6): the table's button opens this page; only its form revokes.
  const confirmRevoke = async (c: Context<PageEnv>, prefix: string) => {
    const key = (await deps.apiKeys.list(c.get('principal'))).find((k) => k.prefix === prefix);
    if (key === undefined) return keysPage(c, { error: 'No such key (it may be revoked already).' }, 404);
    return c.html(
      <ConfirmPage
        email={email(c)}
        current="/dashboard/keys"
        question={`Revoke the key “${key.name}”?`}
        consequence={
          <>
            Every CI job and agent that uses <code>{key.prefix}…</code> is refused from its next request. This
            cannot be undone: you would create a new key and store it again.
          </>
        }
        action="/dashboard/keys/revoke"
        fields={{ prefix: key.prefix }}
        confirmLabel="Revoke key"
        cancelHref="/dashboard/keys"
      />,
    );
  };
  app.get('/keys/revoke', (c) => confirmRevoke(c, c.req.query('prefix') ?? ''));
  app.post('/keys/revoke', async (c) => {
    const field = await formFields(c);
    const prefix = field('prefix');
    if (field('confirm') !== '1') return confirmRevoke(c, prefix);
    const result = await attempt(() => deps.apiKeys.revoke(c.get('principal'), prefix));
    if (!result.ok) return keysPage(c, { error: result.message }, result.status);
    return c.redirect(`/dashboard/keys?revoked=${encodeURIComponent(prefix)}`, 303);
  });

  app.get('/scans', (c) => scansPage(c, {}));
  // Counted against the 5 scan starts a minute per IP, like POST /api/scans.
  app.post('/scans', async (c) => {
    const url = (await formFields(c))('url');
    const result = await attempt(() => deps.scans.start(c.get('principal'), { url }));
    if (!result.ok) return scansPage(c, { url, error: result.message }, result.status);
    return c.redirect(`/dashboard/scans/${result.value.id}`, 303);
  });
  app.get('/scans/:id', async (c) => {
    const result = await attempt(() => deps.scans.get(c.get('principal'), c.req.param('id')));
    if (!result.ok) return scansPage(c, { error: result.message }, result.status);
    const scan = result.value;
    return c.html(
      <ScanPage email={email(c)} scan={scan} summary={summaryOf(scan)} groups={findingGroupsOf(scan)} />,
    );
  });

  app.post('/scans/:id/cancel', async (c) => {
    const id = c.req.param('id');
    const result = await attempt(() => deps.scans.cancel(c.get('principal'), id));
    if (!result.ok) return scansPage(c, { error: result.message }, result.status);
    return c.redirect(`/dashboard/scans/${encodeURIComponent(id)}`, 303);
  });

  app.get('/setup', (c) =>
    c.html(
      <SetupPage
        email={email(c)}
        codehostAWorkflow={codehostAWorkflow(baseUrl)}
        codehostBInclude={codehostBInclude(baseUrl)}
        hooks={{ a: hookSetupFor('a', false, baseUrl), b: hookSetupFor('b', false, baseUrl) }}
        mcp={mcpClientSetups(baseUrl)}
      />,
    ),
  );
  app.route('/account', accountRoutes(deps));
  app.route('/', teamRoutes(deps));
  return app;
}
