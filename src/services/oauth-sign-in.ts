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
import { invalidInput, notFound, storageRules, unauthenticated } from './errors.js';

/** The provider name in the identities table. */
export const CODEHOST_A = 'codehost-a';
/** A sign-in must come back within this; its state is single use either way. */
export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;

export const OAUTH_STATE_REFUSED =
  'this sign-in link is unknown, expired or already used; start "Sign in with platform A" again';

/** "Sign in with platform A": the state and PKCE verifier kept in the database (every instance sees them). */
export interface OAuthSignInService {
  readonly enabled: boolean;
  /** Records a new state and verifier; the provider URL to send the browser to. */
  start(redirectUri: string): Promise<string>;
  /** Takes the state (once), exchanges the code, and finds, links or creates the user. */
  finish(input: { code: string | undefined; state: string | undefined; redirectUri: string }): Promise<User>;
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
    if (settings === undefined) throw notFound('sign-in with platform A is not configured on this service');
    return settings;
  };
  return {
    enabled: settings !== undefined,

    async start(redirectUri) {
      const s = configured();
      const at = now();
      await states.deleteOAuthStatesBefore(new Date(at.getTime() - OAUTH_STATE_TTL_MS));
      const state = randomState();
      const { verifier, challenge } = pkcePair();
      await states.saveOAuthState({ stateHash: hashToken(state), verifier, at });
      return authorizeUrl(s, { state, challenge, redirectUri });
    },

    async finish({ code, state, redirectUri }) {
      const s = configured();
      if (!state) throw invalidInput(OAUTH_STATE_REFUSED);
      // Taken before anything else: a forged, replayed or expired state changes nothing.
      const saved = await states.takeOAuthState(hashToken(state));
      if (saved === null || now().getTime() - saved.createdAt.getTime() > OAUTH_STATE_TTL_MS) {
        throw invalidInput(OAUTH_STATE_REFUSED);
      }
      if (!code) throw invalidInput('platform A sent no sign-in code; start again');
      let external: Awaited<ReturnType<typeof fetchUser>>;
      try {
        const token = await exchangeCode(s, { code, verifier: saved.verifier, redirectUri });
        external = await fetchUser(s, token);
      } catch (e) {
        if (e instanceof OAuthProviderError) throw unauthenticated(e.message);
        throw e;
      }
      const linked = await identities.findUserByIdentity(CODEHOST_A, external.id);
      if (linked !== null) return linked;
      if (external.email === null) {
        throw invalidInput(
          'your platform A account has no verified email address; add one there, then sign in',
        );
      }
      // A verified address on platform A is proof enough that its owner holds the account of that email.
      const user =
        (await accounts.findUserByEmail(external.email)) ??
        (await storageRules(() => accounts.createUser({ email: external.email as string })));
      await storageRules(() =>
        identities.linkIdentity({ provider: CODEHOST_A, subject: external.id, userId: user.id }),
      );
      return user;
    },
  };
}
