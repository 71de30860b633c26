import { type Context, Hono } from 'hono';
import type { AppDeps } from '../server/deps.js';
import { requireOwnOrigin } from '../server/middleware/same-origin.js';
import { clearSessionCookie, sessionIdOf, setSessionCookie } from '../server/middleware/session-cookie.js';
import type { User } from '../storage/index.js';
import { afterSignIn } from './invitation-cookie.js';
import { clearOAuthStateCookie, oauthStateOf, setOAuthStateCookie } from './oauth-state-cookie.js';
import { attempt, formFields } from './page-support.js';
import { LandingPage, type LandingProps } from './pages/landing.js';

const NOTES: Record<string, string> = {
  expired: 'Your session has expired. Sign in again.',
  signedout: 'You are signed out.',
  everywhere: 'You are signed out everywhere: every session of yours has ended.',
  invite: 'Sign in or create an account to see your team invitation; you come back to it after.',
};

/**
 * `/auth/*` (contract 6; 20 requests a minute per IP): the sign-in page, password sign-in and
 * sign-up, sign-out, and "Sign in with GitHub". Every failure is the sign-in page with a message.
 */
export function authRoutes(deps: AppDeps) {
  const { baseUrl } = deps.config;
  const redirectUri = `${baseUrl}/auth/codehost-a/callback`;
  const landing = (
    c: Context,
    props: Omit<LandingProps, 'oauthA'>,
    status: 200 | 400 | 401 | 403 | 404 | 409 | 429 | 503 = 200,
  ) => c.html(<LandingPage oauthA={deps.oauthSignIn.enabled} {...props} />, status);

  /** A new session for the user (any previous one of this browser ended), then the overview or the invitation it kept. */
  const signedIn = async (c: Context, user: User) => {
    await deps.sessions.end(sessionIdOf(c, baseUrl));
    setSessionCookie(c, await deps.sessions.start(user.id), baseUrl);
    return c.redirect(afterSignIn(c, baseUrl), 303);
  };

  /** The user this browser is signed in as, or null. */
  const signedInUser = async (c: Context) => {
    const current = await attempt(() => deps.sessions.authenticate(sessionIdOf(c, baseUrl)));
    return current.ok ? current.value.user : null;
  };

  const passwordForm = (form: 'signin' | 'signup') => async (c: Context) => {
    const field = await formFields(c);
    const email = field('email');
    const result = await attempt(async () => {
      // Refused before any work: another site must not sign a browser into an account of its choosing.
      requireOwnOrigin(c, baseUrl);
      return form === 'signin'
        ? deps.signIn.signIn(email, field('password'))
        : deps.signIn.signUp(email, field('password'));
    });
    if (!result.ok) return landing(c, { error: result.message, email, form }, result.status);
    return signedIn(c, result.value);
  };

  return new Hono()
    .get('/signin', async (c) => {
      // Someone signed in already (a bookmark, the back button) goes on to the dashboard.
      const current = await attempt(() => deps.sessions.authenticate(sessionIdOf(c, baseUrl)));
      if (current.ok) return c.redirect('/dashboard', 303);
      return landing(c, { info: NOTES[c.req.query('note') ?? ''] });
    })
    .post('/signin', passwordForm('signin'))
    .post('/signup', passwordForm('signup'))
    .post('/signout', async (c) => {
      const result = await attempt(async () => requireOwnOrigin(c, baseUrl));
      if (!result.ok) return landing(c, { error: result.message }, result.status);
      await deps.sessions.end(sessionIdOf(c, baseUrl));
      clearSessionCookie(c, baseUrl);
      return c.redirect('/auth/signin?note=signedout', 303);
    })
    .get('/codehost-a/start', async (c) => {
      // Signed in: the flow links GitHub to this account (the overview page's "Link GitHub").
      const result = await attempt(async () => deps.oauthSignIn.start(redirectUri, await signedInUser(c)));
      if (!result.ok) return landing(c, { error: result.message }, result.status);
      setOAuthStateCookie(c, result.value.state, baseUrl);
      return c.redirect(result.value.url, 302);
    })
    .get('/codehost-a/callback', async (c) => {
      const browserState = oauthStateOf(c, baseUrl);
      clearOAuthStateCookie(c, baseUrl);
      const result = await attempt(async () =>
        deps.oauthSignIn.finish({
          code: c.req.query('code'),
          state: c.req.query('state'),
          browserState,
          redirectUri,
          signedIn: await signedInUser(c),
        }),
      );
      if (!result.ok) return landing(c, { error: result.message }, result.status);
      return signedIn(c, result.value);
    });
}
