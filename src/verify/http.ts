import type { VerificationResult } from '../scanner/index.js';
import { unchecked } from './outcome.js';

export interface ProviderRequest {
  /** The provider's configured base URL; the path is resolved below it (GHE's `/api/v3` kept). */
  baseUrl: string;
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  signal: AbortSignal;
}

/** A response that arrived, or the `unchecked` result that explains why none did. */
export type ProviderResponse = { status: number; body: () => Promise<string> } | VerificationResult;

export function isResponse(r: ProviderResponse): r is { status: number; body: () => Promise<string> } {
  return 'status' in r;
}

export function providerUrl(baseUrl: string, path: string): URL {
  return new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
}

/**
 * One read-only call to a provider. Redirects are not followed: the credential goes only to the
 * configured URL, never to wherever a response points.
 */
export async function callProvider(request: ProviderRequest): Promise<ProviderResponse> {
  try {
    const response = await fetch(providerUrl(request.baseUrl, request.path), {
      method: request.method,
      headers: request.headers,
      redirect: 'manual',
      signal: request.signal,
    });
    return { status: response.status, body: () => response.text() };
  } catch (e) {
    return unchecked(describeFailure(e, request.signal));
  }
}

/** A network failure in words, from its error code only. */
export function describeFailure(e: unknown, signal: AbortSignal): string {
  if (signal.aborted) {
    return signal.reason instanceof Error && signal.reason.name === 'TimeoutError'
      ? 'the provider did not answer in time'
      : 'the check was stopped: the time for checks ran out';
  }
  const code = (e as { cause?: { code?: unknown } })?.cause?.code;
  return typeof code === 'string' ? `network error (${code})` : 'network error';
}

/** The outcome for a status the provider's rules do not decide. */
export function undecided(status: number): VerificationResult {
  if (status === 429) return unchecked('rate limited by the provider (HTTP 429)');
  if (status >= 300 && status < 400) return unchecked(`unexpected redirect (HTTP ${status})`);
  return unchecked(`inconclusive answer (HTTP ${status})`);
}
