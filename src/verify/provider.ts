import { RULES, type RuleId, type VerificationResult } from '../scanner/index.js';
import { checkChatToken } from './chat.js';
import { checkCodehostToken } from './codehost.js';
import { checkPaymentKey } from './payment.js';

/** Provider base URLs (`SVC_*_API_URL`); tests point them at servers on 127.0.0.1. */
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

/** The rules that have a read-only check. Every other rule says in its own file why it never will. */
const READ_ONLY_CHECKS: Partial<Record<RuleId, Check>> = {
  'codehost-token': checkCodehostToken,
  'codehost-fine-grained-pat': checkCodehostToken,
  'payment-live-key': checkPaymentKey,
  'chat-token': checkChatToken,
};

/** Each rule's check, or the reason (the rule's `uncheckable`) it is never checked. */
export const CHECKS: Readonly<Record<RuleId, Check | { never: string }>> = Object.freeze(
  Object.fromEntries(
    RULES.map((rule) => [
      rule.id,
      READ_ONLY_CHECKS[rule.id] ?? { never: rule.uncheckable ?? 'no check is known for this rule' },
    ]),
  ) as Record<RuleId, Check | { never: string }>,
);
