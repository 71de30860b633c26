import type { VerificationResult } from '../scanner/index.js';
import { VERSION } from '../version.js';
import type { CheckContext } from './check.js';
import { callProvider, isResponse, undecided } from './http.js';
import { active, revoked } from './outcome.js';

/** `GET {payment_api_url}/v1/balance`; 2xx or 403 (a restricted key) active, 401 revoked. */
export async function checkPaymentKey(key: string, ctx: CheckContext): Promise<VerificationResult> {
  const response = await callProvider({
    baseUrl: ctx.urls.paymentApiUrl,
    path: 'v1/balance',
    method: 'GET',
    headers: { Authorization: `Bearer ${key}`, 'User-Agent': `svc/${VERSION}` },
    signal: ctx.signal,
  });
  if (!isResponse(response)) return response;
  if ((response.status >= 200 && response.status < 300) || response.status === 403) return active();
  if (response.status === 401) return revoked();
  return undecided(response.status);
}
