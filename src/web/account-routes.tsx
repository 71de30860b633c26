import { type Context, Hono } from 'hono';
import type { AppDeps } from '../server/deps.js';
import { clearSessionCookie, setSessionCookie } from '../server/middleware/session-cookie.js';
import type { Principal } from '../services/vocabulary.js';
import { attempt, formFields } from './page-support.js';
import { AccountPage, type AccountProps } from './pages/account.js';

type PageEnv = { Variables: { principal: Principal } };

/** Where "sign out everywhere" lands: the sign-in page's note (web/auth-routes.tsx). */
export const SIGNED_OUT_EVERYWHERE = '/auth/signin?note=everywhere';

/**
 * `/dashboard/account`: the signed-in user's password and sessions. Mounted inside the dashboard's
 * routes, so a session is required and every post is held to the Origin rule; posts count against
 * the per-IP sign-in limit (server/rate-limits.ts), a wrong current password against the account's.
 */
export function accountRoutes(deps: AppDeps) {
  const { baseUrl } = deps.config;

  const accountPage = async (
    c: Context<PageEnv>,
    props: Omit<AccountProps, 'email' | 'hasPassword'>,
    status: 200 | 400 | 401 | 403 | 404 | 409 | 429 | 503 = 200,
  ) => {
    const principal = c.get('principal');
    const hasPassword = await deps.accountSecurity.hasPassword(principal);
    return c.html(<AccountPage email={principal.user.email} hasPassword={hasPassword} {...props} />, status);
  };

  return new Hono<PageEnv>()
    .get('/', (c) =>
      accountPage(c, {
        info:
          c.req.query('changed') === '1'
            ? 'Password saved. Every other session of yours has ended; this one goes on.'
            : undefined,
      }),
    )
    .post('/password', async (c) => {
      const field = await formFields(c);
      const result = await attempt(() =>
        deps.accountSecurity.changePassword(c.get('principal'), field('current'), field('password')),
      );
      if (!result.ok) return accountPage(c, { error: result.message }, result.status);
      // The session this browser goes on with has a new id: the old cookie opens nothing anywhere.
      setSessionCookie(c, result.value, baseUrl);
      return c.redirect('/dashboard/account?changed=1', 303);
    })
    .post('/signout-everywhere', async (c) => {
      await deps.accountSecurity.signOutEverywhere(c.get('principal'));
      clearSessionCookie(c, baseUrl);
      return c.redirect(SIGNED_OUT_EVERYWHERE, 303);
    });
}
