import { type Context, Hono } from 'hono';
import type { AppDeps } from '../server/deps.js';
import { requireOwnOrigin } from '../server/middleware/same-origin.js';
import { sessionIdOf, setSessionCookie } from '../server/middleware/session-cookie.js';
import { attempt, formFields } from './page-support.js';
import { SetPasswordPage } from './pages/set-password.js';

/**
 * `/auth/set-password` (contract 6): the page of a one-time link printed by `svc admin create-user`
 * or `reset-password`. The token is in the query (the request log writes no query value) and then in
 * the form's body; the post is held to the Origin rule like every /auth form.
 */
export function passwordLinkRoutes(deps: AppDeps) {
  const { baseUrl } = deps.config;

  /** The page for `token`: its form, or (the link refused: 404) the reason and no form. */
  const page = async (c: Context, token: string, error?: string, status: 200 | 400 | 403 | 429 = 200) => {
    const link = await attempt(() => deps.passwordLinks.check(token));
    if (!link.ok) return c.html(<SetPasswordPage error={link.message} />, link.status);
    return c.html(<SetPasswordPage link={{ email: link.value.email, token }} error={error} />, status);
  };

  return new Hono()
    .get('/set-password', (c) => page(c, c.req.query('token') ?? ''))
    .post('/set-password', async (c) => {
      const field = await formFields(c);
      const token = field('token');
      const result = await attempt(async () => {
        // Refused before any work: another site must not set a password, nor sign a browser in.
        requireOwnOrigin(c, baseUrl);
        return deps.passwordLinks.redeem(token, field('password'));
      });
      if (!result.ok) {
        if (result.status === 400 || result.status === 403 || result.status === 429) {
          return page(c, token, result.message, result.status);
        }
        return c.html(<SetPasswordPage error={result.message} />, result.status);
      }
      // This browser's earlier session, whoever's it was, ends too.
      await deps.sessions.end(sessionIdOf(c, baseUrl));
      setSessionCookie(c, result.value.sessionId, baseUrl);
      return c.redirect('/dashboard', 303);
    });
}
