import { timingSafeEqual } from 'node:crypto';
import {
  authorizeUrl,
  type CodehostAOAuthSettings,
  exchangeCode,
  fetchUser,
  OAuthProviderError,
  pkcePair,
  randomState,
} from '../auth/codehost-a-oauth.js';
import { hashToken } from '../auth/session-ids.js';
import type { AccountRepository, IdentityRepository, OAuthStateRepository, User } from '../storage/index.js';
import { normalizeEmail } from './emails.js';
import { DomainError, forbidden, invalidInput, notFound, storageRules, unauthenticated } from './errors.js';

/** The provider name in the identities table. */
export const CODEHOST_A = 'codehost-a';
/** A sign-in must come back within this; its state is single use either way. */
export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;

export const OAUTH_STATE_REFUSED =
  'this sign-in link is unknown, expired or already used; start "Sign in with GitHub" again';
/** A callback whose state this browser did not start (login CSRF): nobody is signed in. */
export const OAUTH_OTHER_BROWSER =
  'this sign-in was not started in this browser, so it signs nobody in; start "Sign in with GitHub" again';
/** See docs/ARCHITECTURE.md, "Sign in with GitHub": an email alone never links accounts. */
export const OAUTH_EMAIL_TAKEN =
  'an account with the email of your GitHub account exists already; sign in to it with its password, then link GitHub from the overview page';
export const OAUTH_LINKED_ELSEWHERE =
  'this GitHub account is linked to another account here; sign out and sign in with GitHub to use that one';
export const OAUTH_LINK_SESSION_GONE =
  'you are no longer signed in to the account that started linking GitHub; sign in and link again';

/**
 * "Sign in with GitHub": the state and PKCE verifier kept in the database (every instance sees
 * them), and the state also given to the browser that started (a cookie, set by the route), so that
 * only that browser can finish. Started by a signed-in user, the flow links GitHub to their account.
 */
export interface OAuthSignInService {
  readonly enabled: boolean;
  /** Whether GitHub sign-in is on and this user has no GitHub account linked yet (the overview offers it). */
  canLink(user: User): Promise<boolean>;
  /**
   * Records a new state and verifier (and `signedIn`, whose account the flow links to); the provider
   * URL to send the browser to, and the state for the browser to keep.
   */
  start(redirectUri: string, signedIn: User | null): Promise<{ url: string; state: string }>;
  /**
   * Checks that `state` is the one `browserState` (the starting browser's cookie) holds, takes it
   * (once), exchanges the code, and finds, links or creates the user.
   */
  finish(input: {
    code: string | undefined;
    state: string | undefined;
    browserState: string | undefined;
    redirectUri: string;
    signedIn: User | null;
  }): Promise<User>;
}

/** Whether the two are the same secret, in time that does not depend on where they differ. */
function sameSecret(a: string, b: string): boolean {
  // Hashes have one length, so timingSafeEqual applies whatever was sent.
  return timingSafeEqual(Buffer.from(hashToken(a), 'hex'), Buffer.from(hashToken(b), 'hex'));
}

export function createOAuthSignInService(deps: {
  settings: CodehostAOAuthSettings | undefined;
  states: OAuthStateRepository;
  identities: IdentityRepository;
  accounts: Pick<AccountRepository, 'findUserByEmail' | 'createUser'>;
  now: () => Date;
}): OAuthSignInService {
  const { settings, states, identities, accounts, now } = deps;
  const configured = () => {
    if (settings === undefined) throw notFound('sign-in with GitHub is not configured on this service');
    return settings;
  };
  return {
    enabled: settings !== undefined,

    async canLink(user) {
      return settings !== undefined && !(await identities.hasIdentity(user.id, CODEHOST_A));
    },

    async start(redirectUri, signedIn) {
      const s = configured();
      const at = now();
      await states.deleteOAuthStatesBefore(new Date(at.getTime() - OAUTH_STATE_TTL_MS));
      const state = randomState();
      const { verifier, challenge } = pkcePair();
      await states.saveOAuthState({
        stateHash: hashToken(state),
        verifier,
        at,
        userId: signedIn?.id ?? null,
      });
      return { url: authorizeUrl(s, { state, challenge, redirectUri }), state };
    },

    async finish({ code, state, browserState, redirectUri, signedIn }) {
      const s = configured();
      if (!state) throw invalidInput(OAUTH_STATE_REFUSED);
      // Login CSRF: someone else's callback URL (their code, their state) opened in this browser would
      // sign it into their account. Refused before the state is taken: it stays theirs to use or lose.
      if (!browserState || !sameSecret(state, browserState)) throw forbidden(OAUTH_OTHER_BROWSER);
      // Taken before anything else: a forged, replayed or expired state changes nothing.
      const saved = await states.takeOAuthState(hashToken(state));
      if (saved === null || now().getTime() - saved.createdAt.getTime() > OAUTH_STATE_TTL_MS) {
        throw invalidInput(OAUTH_STATE_REFUSED);
      }
      if (!code) throw invalidInput('GitHub sent no sign-in code; start again');
      let external: Awaited<ReturnType<typeof fetchUser>>;
      try {
        const token = await exchangeCode(s, { code, verifier: saved.verifier, redirectUri });
        external = await fetchUser(s, token);
      } catch (e) {
        if (e instanceof OAuthProviderError) throw unauthenticated(e.message);
        throw e;
      }
      const linked = await identities.findUserByIdentity(CODEHOST_A, external.id);
      if (saved.userId !== null) {
        // Linking, started from inside an account: only for the user still signed in here.
        if (signedIn?.id !== saved.userId) throw forbidden(OAUTH_LINK_SESSION_GONE);
        if (linked !== null && linked.id !== signedIn.id)
          throw new DomainError('conflict', OAUTH_LINKED_ELSEWHERE);
        if (linked === null) {
          await storageRules(() =>
            identities.linkIdentity({ provider: CODEHOST_A, subject: external.id, userId: signedIn.id }),
          );
        }
        return signedIn;
      }
      if (linked !== null) return linked;
      if (external.email === null) {
        throw invalidInput('your GitHub account has no verified email address; add one there, then sign in');
      }
      let email: string;
      try {
        email = normalizeEmail(external.email);
      } catch {
        throw invalidInput('the verified email address of your GitHub account cannot be used here');
      }
      // Contract 6: a matching email never links. Whoever signed up with that email and a password
      // (perhaps not its owner: pre-hijacking) keeps an account that the GitHub user does not
      // enter, and the GitHub user is not handed an account someone else holds the password of.
      // Refused rather than made without the email: an account is known by its email (svc admin, teams).
      if ((await accounts.findUserByEmail(email)) !== null)
        throw new DomainError('conflict', OAUTH_EMAIL_TAKEN);
      const user = await storageRules(() => accounts.createUser({ email }));
      await storageRules(() =>
        identities.linkIdentity({ provider: CODEHOST_A, subject: external.id, userId: user.id }),
      );
      return user;
    },
  };
}
