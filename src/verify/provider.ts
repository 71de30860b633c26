import type { RuleId, VerificationResult } from '../scanner/index.js';
import { checkChatToken } from './chat.js';
import { checkCodehostToken } from './codehost.js';
import { checkPaymentKey } from './payment.js';

/** Provider base URLs (contract section 3); tests point them at servers on 127.0.0.1. */
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

export type Check = (secret: string, ctx: CheckContext) => Promise<VerificationResult>;

/** Spec 3: which rules have a read-only check, and why the others never will. */
export const CHECKS: Readonly<Record<RuleId, Check | { never: string }>> = {
  'codehost-token': checkCodehostToken,
  'codehost-fine-grained-pat': checkCodehostToken,
  'payment-live-key': checkPaymentKey,
  'chat-token': checkChatToken,
  'cloud-access-key-id': { never: 'cannot be checked: the secret half of the key pair is needed' },
  'webapi-key': { never: 'no neutral read-only check exists for this provider' },
  'private-key': { never: 'no neutral read-only check exists for a private key' },
  'generic-secret': { never: 'no provider is known for a generic secret' },
};
