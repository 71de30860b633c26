import { createHash, randomBytes } from 'node:crypto';

/**
 * "Sign in with GitHub": the OAuth 2.0 authorization code flow with PKCE (S256) against
 * configurable URLs (a fake on loopback in tests). Only the HTTP exchanges; what a sign-in means
 * (which user, state kept once) is services/oauth-sign-in.ts.
 */
export interface CodehostAOAuthSettings {
  clientId: string;
  clientSecret: string;
  /** Where users authorize and codes are exchanged (`https://github.com`). */
  oauthUrl: string;
  /** Where the user is read (`https://api.github.com`). */
  apiUrl: string;
}

/** A GitHub user as sign-in needs it: a stable id and a verified email. */
export interface CodehostAUser {
  id: string;
  login: string;
  /** The primary verified email, or null when the account has none. */
  email: string | null;
}

/** A failure of the provider, in words safe to show (never a token or a body). */
export class OAuthProviderError extends Error {
  override name = 'OAuthProviderError';
}

const TIMEOUT_MS = 10_000;

/** A PKCE pair: the verifier stays on the server, the challenge goes in the authorize URL. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function randomState(): string {
  return randomBytes(32).toString('base64url');
}

export function authorizeUrl(
  settings: CodehostAOAuthSettings,
  input: { state: string; challenge: string; redirectUri: string },
): string {
  const url = new URL('/login/oauth/authorize', settings.oauthUrl);
  url.search = new URLSearchParams({
    client_id: settings.clientId,
    redirect_uri: input.redirectUri,
    scope: 'read:user user:email',
    state: input.state,
    code_challenge: input.challenge,
    code_challenge_method: 'S256',
    allow_signup: 'false',
  }).toString();
  return url.toString();
}

/** Exchanges the code for an access token (which is used once, to read the user, and never kept). */
export async function exchangeCode(
  settings: CodehostAOAuthSettings,
  input: { code: string; verifier: string; redirectUri: string },
): Promise<string> {
  const body = await call(new URL('/login/oauth/access_token', settings.oauthUrl), {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: settings.clientId,
      client_secret: settings.clientSecret,
      code: input.code,
      redirect_uri: input.redirectUri,
      code_verifier: input.verifier,
    }).toString(),
  });
  // The provider answers 200 with {"error": ...} for a used or unknown code.
  const token = (body as { access_token?: unknown }).access_token;
  if (typeof token !== 'string' || token === '') {
    throw new OAuthProviderError('GitHub did not accept the sign-in code (it may have been used already)');
  }
  return token;
}

export async function fetchUser(settings: CodehostAOAuthSettings, token: string): Promise<CodehostAUser> {
  const headers = { accept: 'application/json', authorization: `Bearer ${token}` };
  const user = (await call(new URL(`${settings.apiUrl}/user`), { headers })) as {
    id?: unknown;
    login?: unknown;
  };
  if ((typeof user.id !== 'number' && typeof user.id !== 'string') || typeof user.login !== 'string') {
    throw new OAuthProviderError('GitHub answered an unexpected user');
  }
  // The profile's email is whatever the user made public; only a verified address may match an account.
  const emails = await call(new URL(`${settings.apiUrl}/user/emails`), { headers });
  const list = Array.isArray(emails)
    ? (emails as { email?: unknown; primary?: unknown; verified?: unknown }[])
    : [];
  const verified = list.filter((e) => e.verified === true && typeof e.email === 'string');
  const chosen = verified.find((e) => e.primary === true) ?? verified[0];
  return { id: String(user.id), login: user.login, email: (chosen?.email as string | undefined) ?? null };
}

async function call(url: URL, init: RequestInit): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch {
    throw new OAuthProviderError('GitHub could not be reached');
  }
  if (!response.ok) throw new OAuthProviderError(`GitHub answered HTTP ${response.status}`);
  try {
    return await response.json();
  } catch {
    throw new OAuthProviderError('GitHub answered something other than JSON');
  }
}
