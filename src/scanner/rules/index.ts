import { chatToken } from './chat-token.js';
import { cloudAccessKeyId } from './cloud-access-key-id.js';
import { codehostFineGrainedPat } from './codehost-fine-grained-pat.js';
import { codehostToken } from './codehost-token.js';
import { genericSecret } from './generic-secret.js';
import { paymentLiveKey } from './payment-live-key.js';
import { privateKey } from './private-key.js';
import type { Rule } from './rule.js';
import { webapiKey } from './webapi-key.js';

export { FINDING_HELP, type Rule, type SecretMatch } from './rule.js';

/** Every rule, in the order of `RULE_IDS` (the order reports list them in). */
export const RULES: readonly Rule[] = Object.freeze([
  cloudAccessKeyId,
  codehostToken,
  codehostFineGrainedPat,
  chatToken,
  paymentLiveKey,
  webapiKey,
  privateKey,
  genericSecret,
]);

const BY_ID = new Map<string, Rule>(RULES.map((rule) => [rule.id, rule]));

/** The rule with this id, or undefined for a string that names none (ids may come from files). */
export function ruleById(id: string): Rule | undefined {
  return BY_ID.get(id);
}
