import type { RuleId } from '../scanner/index.js';
import { checkChatToken } from './chat.js';
import type { Check } from './check.js';
import { checkCodehostToken } from './codehost.js';
import { checkPaymentKey } from './payment.js';

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
