import type { VerificationResult } from '../scanner/index.js';

/** Provider base URLs (SVC_CODEHOST_API_URL, ...); tests point them at servers on 127.0.0.1. */
export interface ProviderUrls {
  codehostApiUrl: string;
  paymentApiUrl: string;
  chatApiUrl: string;
}

export interface CheckContext {
  urls: ProviderUrls;
  /** Aborts the call at its own timeout or when the time for all checks runs out. */
  signal: AbortSignal;
}

/** One provider's read-only call: whether a credential still works. */
export type Check = (secret: string, ctx: CheckContext) => Promise<VerificationResult>;
