import type { Rule } from './rule.js';

// Assembled from parts so this file never holds a contiguous key the scanner would report.
// Stryker disable all: sample values, used only by the samples below
const BODY = 'SvcSynthetic0Payment0Live0Key0Aa1';
const SECRET_KEY = 'sk_live' + '_' + BODY;
const RESTRICTED = 'rk_live' + '_' + BODY;
// Stryker restore all

export const paymentLiveKey: Rule = {
  id: 'payment-live-key',
  title: 'Stripe live key',
  description:
    'A Stripe live secret or restricted key: sk_live_ or rk_live_ followed by at least 24 characters.',
  remediation:
    'Roll the key at https://dashboard.stripe.com/apikeys (it expires at once or after a delay you choose).',
  keywords: ['sk_live_', 'rk_live_'],
  // At least 24 of [A-Za-z0-9] (greedy: the whole run is the key); not glued to a preceding run.
  pattern: /(?<![A-Za-z0-9])(?<secret>[sr]k_live_[A-Za-z0-9]{24,})/g,
  // The rule's test data (rules.test.ts runs every line): a mutant of a sample changes a test,
  // not the scanner, so Stryker leaves the samples alone (docs/mutation-testing.md).
  // Stryker disable all
  samples: {
    positives: [
      `PAYMENT_SECRET_KEY=${SECRET_KEY}`,
      `  restricted_key: ${RESTRICTED}`,
      `{"livemode": true, "key": "${SECRET_KEY}"}`,
      `const payments = require('payments')('${SECRET_KEY}');`,
      `payments.api_key = "${RESTRICTED}"`,
      `export PAYMENT_KEY=${'sk_live' + '_' + BODY.slice(0, 24)}`,
      `curl https://api.payments.test/v1/charges -u ${SECRET_KEY}:`,
      `let p=new P("${SECRET_KEY}",{apiVersion:"2024-04-10"});`,
    ],
    negatives: [
      `PAYMENT_KEY=${'sk_live' + '_' + BODY.slice(0, 23)}`,
      `PAYMENT_KEY=${'sk_test' + '_' + BODY}`,
      `PAYMENT_KEY=${'pk_live' + '_' + BODY}`,
      `PAYMENT_KEY=a${SECRET_KEY}`,
      `PAYMENT_KEY=${'SK_LIVE' + '_' + BODY}`,
      `PAYMENT_KEY=${'sk_live' + '_' + 'Svc-Synthetic-Payment-Key-Aa1'}`,
      `PAYMENT_KEY=${'sk_live' + '_' + 'ChangeMe0000000000000000000'}`,
      'Live secret keys start with sk_live_ and must stay on the server.',
    ],
  },
  // Stryker restore all
};
