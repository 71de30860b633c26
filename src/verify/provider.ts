import { RULES, type RuleId } from '../scanner/index.js';
import { checkChatToken } from './chat.js';
import type { Check } from './check.js';
import { checkCodehostToken } from './codehost.js';
import { checkPaymentKey } from './payment.js';

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
