import type { VerificationResult } from '../scanner/index.js';
import { VERSION } from '../version.js';
import type { CheckContext } from './check.js';
import { callProvider, isResponse, undecided } from './http.js';
import { active, revoked } from './outcome.js';

/** `GET {codehost_api_url}/rate_limit`; 2xx or 403 active, 401 revoked. */
export async function checkCodehostToken(token: string, ctx: CheckContext): Promise<VerificationResult> {
  const response = await callProvider({
    baseUrl: ctx.urls.codehostApiUrl,
    path: 'rate_limit',
    method: 'GET',
    headers: {
      Authorization: `Bearer ${token}`,
      Accept: 'application/vnd.github+json',
      'User-Agent': `svc/${VERSION}`,
    },
    signal: ctx.signal,
  });
  if (!isResponse(response)) return response;
  if ((response.status >= 200 && response.status < 300) || response.status === 403) return active();
  if (response.status === 401) return revoked();
  return undecided(response.status);
}
