import { shannonEntropy } from './entropy.js';
import type { Rule } from './rule.js';

/** Below this many bits per character a value reads as a word, not a secret. */
export const MIN_ENTROPY = 3.5;

// Sample values are interpolated, so no line of this file is itself an assignment the rule reports.
// Stryker disable all: sample values, used only by the samples below
const V1 = 'Svc9!synth#Q2x$Lm7';
const V2 = 'SvcSynth0Value9Xq';
const V3 = 'q7W-svc/synth+K3z=';
const SAME = 'a'.repeat(20);
const WORDS = 'secret'.repeat(4);
const WORDS2 = 'password123'.repeat(2);
const SHORT = V1.slice(0, 15);
const HOLDER = 'YOUR-API-KEY-' + 'PLACEHOLDER-01';
const CHANGE = 'ChangeMe' + V1;
const DUMMY = 'dummy' + V2;
const ENV_REF = '$' + '{POSTGRES_PASSWORD_FILE}';
const SHELL_REF = '$' + 'SERVICE_API_KEY_VALUE';
const REF_THEN_VALUE = '$' + '{PREFIX}' + 'a8F3kQ9zL2mW7xR4';
// Stryker restore all

/*
 * name:  a maximal run of identifier characters (`(?<![\w.-])`) that contains a secret-like word. The
 *        lookahead finds the word and `(?=(...))\k<name>` takes the run atomically, so a long run of
 *        identifier characters costs linear time, never quadratic backtracking (minified lines).
 * op:    `:=` and `=>` before `=` and `:`; the quote must follow, so `==` is not an assignment. A type
 *        annotation between name and `=` is still an assignment (`apiKey: string = "..."` in TS,
 *        Kotlin, Swift, Python), so `: Type =` counts as `=`.
 * value: 16+ characters, none of them the opening quote or white space: a secret is one token, and
 *        letting spaces in turns every English phrase of 16 characters into a finding
 *        (`'codehost-token': 'Platform A token'`). One plain character-class loop
 *        per quote kind, chosen by a lookbehind on the opening quote: a loop like `(?:(?!\k<q>).)+`
 *        costs a backtracking frame per character and overflows the stack on a megabyte-long value.
 */
const NAME = String.raw`(?<![\w.-])(?=[\w.-]*?(?:secret|token|passw(?:or)?d|api[_-]?key|access[_-]?key))(?=(?<name>[\w.-]+))\k<name>`;
const OP = String.raw`["']?\s*(?::=|=>|=|:(?:\s*[A-Za-z_][\w.]*\??\s*=)?)\s*`;
const VALUE = String.raw`(?<q>["'])(?<secret>(?<=")[^"\s]{16,}|(?<=')[^'\s]{16,})\k<q>`;

/**
 * A value that is only a reference to where the secret lives (`${DB_PASSWORD}`, `$API_TOKEN`,
 * `%(secret)s`, `#{token}`, `<your-token>`) is configuration done right, not a leak.
 */
const REFERENCE = /^(?:\$\{[^}]+\}|\$[A-Za-z_][\w]*|%\([^)]+\)[sd]|#\{[^}]+\}|<[^>]+>)$/;

export const genericSecret: Rule = {
  id: 'generic-secret',
  title: 'High-entropy secret assigned to a secret-like name',
  description:
    'A quoted value of 16 or more characters, with a Shannon entropy of at least 3.5 bits per character, ' +
    'assigned to a name containing secret, token, password, passwd, api_key or access_key.',
  uncheckable: 'no provider is known for a generic secret',
  keywords: [
    'secret',
    'token',
    'passw',
    'api_key',
    'api-key',
    'apikey',
    'access_key',
    'access-key',
    'accesskey',
  ],
  pattern: new RegExp(NAME + OP + VALUE, 'gi'),
  accept: (secret) => !REFERENCE.test(secret) && shannonEntropy(secret) >= MIN_ENTROPY,
  // The rule's test data (rules.test.ts runs every line): a mutant of a sample changes a test,
  // not the scanner, so Stryker leaves the samples alone (docs/mutation-testing.md).
  // Stryker disable all
  samples: {
    positives: [
      `DB_PASSWORD="${V1}"`,
      `  access-key: '${V2}'`,
      `  "apiKey": "${V3}",`,
      `const clientSecret = '${V1}';`,
      `API_KEY = "${V2}"  # rotated quarterly`,
      `\tsecret := "${V3}"`,
      `  :auth_token => "${V1}",`,
      `export SERVICE_TOKEN='${V2}'`,
      `var a={user:"svc",passwd:"${V3}"};a.login()`,
      `config.access_key = "${V1}"`,
      `{"db_password": "${V2}", "db_user": "svc"}`,
      `ACCESSKEY: "${V3}"`,
      `  private readonly apiKey: string = '${V1}';`,
      // Starts like a reference, but the rest is a literal value.
      `  token = "${REF_THEN_VALUE}"`,
    ],
    negatives: [
      `password = "${SAME}"`,
      `  'codehost-token': 'Platform A token: ghp_ or gho_ prefix',`,
      `  password: "${ENV_REF}"`,
      `  api_key: '${SHELL_REF}'`,
      `  secret_key = "%(django_secret_key)s"`,
      `  password: "#{Rails.application.credentials.db9}"`,
      `  token: "<paste-your-token-here>"`,
      `secret = "${WORDS}"`,
      `token: "${WORDS2}"`,
      `PASSWORD=${V1}`,
      `password = "${SHORT}"`,
      `username = "${V1}"`,
      `api.key = "${V2}"`,
      `api_key = "${HOLDER}"`,
      `password: "${CHANGE}"`,
      `secret = "${DUMMY}"`,
      `token = \`${V1}\``,
      `if (token == "${V1}") {`,
      `password = "${V1}'`,
      `"description": "The token is sent in the Authorization header"`,
    ],
  },
  // Stryker restore all
};
