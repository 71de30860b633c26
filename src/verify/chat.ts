import type { VerificationResult } from '../scanner/index.js';
import { VERSION } from '../version.js';
import type { CheckContext } from './check.js';
import { callProvider, describeFailure, isResponse, undecided } from './http.js';
import { active, revoked, unchecked } from './outcome.js';

/** The `error` values of `auth.test` that mean the token no longer works. */
export const REVOKED_ERRORS = new Set([
  'invalid_auth',
  'token_revoked',
  'account_inactive',
  'token_expired',
  'not_authed',
]);

/** `POST {chat_api_url}/api/auth.test`; `ok: true` active, a revoked error value revoked. */
export async function checkChatToken(token: string, ctx: CheckContext): Promise<VerificationResult> {
  const response = await callProvider({
    baseUrl: ctx.urls.chatApiUrl,
    path: 'api/auth.test',
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/x-www-form-urlencoded',
      'User-Agent': `svc/${VERSION}`,
    },
    signal: ctx.signal,
  });
  if (!isResponse(response)) return response;
  // The chat provider answers 200 with `ok` for both outcomes; any other status decides nothing.
  if (response.status !== 200) return undecided(response.status);
  let body: unknown;
  try {
    body = JSON.parse(await response.body());
  } catch (e) {
    if (ctx.signal.aborted) return unchecked(describeFailure(e, ctx.signal));
    return unchecked('the provider answered with something that is not JSON');
  }
  const { ok, error } = (body ?? {}) as { ok?: unknown; error?: unknown };
  if (ok === true) return active();
  if (typeof error === 'string' && REVOKED_ERRORS.has(error)) return revoked();
  // The error value is a short code from a fixed set of the provider's, shown to help triage.
  if (typeof error === 'string' && /^[a-z_]{1,40}$/.test(error))
    return unchecked(`inconclusive answer (${error})`);
  return unchecked('inconclusive answer');
}
