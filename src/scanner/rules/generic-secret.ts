import { shannonEntropy } from './entropy.js';
import type { Rule } from './rule.js';
import { tokenEfficiency } from './token-efficiency.js';

/** Below this many bits per character a value reads as a word, not a secret. */
export const MIN_ENTROPY = 3.5;
/** The shortest value the rule reports (spec 2.4); also the shortest literal part of a template. */
export const MIN_LENGTH = 16;
/**
 * From this many characters per BPE token a value reads as words (identifiers, dotted names,
 * routes), not as a random string: set by measurement (docs/ARCHITECTURE.md, "The generic rule's
 * precision"): code that names a secret came to 3.1 and more, random values never above 2.7.
 */
export const WORDS_EFFICIENCY = 3;
/** How much of a value the words test reads: BPE merging is quadratic in a piece's length. */
const WORDS_SAMPLE = 256;

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
const TYPED = 'Tr0ub4dor' + '&3horse';
const HEX = '9f4c1e7a2b8d6053' + 'c1a9e7f3b5d2086e' + '4b7a1c9d3e5f2086' + 'a1c3e5b7d9f20468';
const IDENTIFIER = 'getTokenBy' + 'RangeStart';
const DOTTED = 'action_controller' + '.csrf_token';
const ROUTE = '/disk/' + ':encoded_token';
const CI_REF = '$' + '{{ secrets.RUBYGEMS_AUTH_TOKEN }}'.replace(/ /g, '');
const INTERPOLATED = '#' + '{password_attribute}_digest';
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
 *        (`'codehost-token': 'GitHub token'`). One plain character-class loop
 *        per quote kind, chosen by a lookbehind on the opening quote: a loop like `(?:(?!\k<q>).)+`
 *        costs a backtracking frame per character and overflows the stack on a megabyte-long value.
 */
const NAME = String.raw`(?<![\w.-])(?=[\w.-]*?(?:secret|token|passw(?:or)?d|api[_-]?key|access[_-]?key))(?=(?<name>[\w.-]+))\k<name>`;
const OP = String.raw`["']?\s*(?::=|=>|=|:(?:\s*[A-Za-z_][\w.]*\??\s*=)?)\s*`;
const VALUE = String.raw`(?<q>["'])(?<secret>(?<=")[^"\s]{16,}|(?<=')[^'\s]{16,})\k<q>`;

/**
 * Template and interpolation expressions, wherever they are in a value (`${DB_PASSWORD}`,
 * `${{ secrets.TOKEN }}`, `$(VAR)`, `#{expr}`, `{{ .Values.token }}`, `%(secret)s`): what they stand
 * for is not in the file. One left open by the value's end (`#{call(`) runs to the end.
 */
const TEMPLATE_PARTS =
  /\$\{\{[^}]*(?:\}\}|$)|\$\{[^}]*(?:\}|$)|\$\([^)]*(?:\)|$)|#\{[^}]*(?:\}|$)|\{\{[^}]*(?:\}\}|$)|%\([^)]*\)[sdifr]/g;
/**
 * Values that are a reference as a whole (`$API_TOKEN`, `<your-token>`, `process.env.API_KEY`): a
 * `$NAME` inside a longer literal is left alone, since in many quotes it is no interpolation
 * (`'$tr0ng_Pas$word?'` in Ruby is a password).
 */
const WHOLE_REFERENCE = /^(?:\$[A-Za-z_]\w*|<[^<>]+>|process\.env(?:\.[A-Za-z_]\w*|\[[^\]]+\]))$/;

/**
 * Whether a value is a literal secret, not code that names one (contract section 1): not a
 * reference; its literal part, once template expressions are taken out, still 16 characters or
 * more and of high entropy; and not words.
 */
export function isLiteralSecret(value: string): boolean {
  const literal = literalPart(value);
  return literal !== null && !readsAsWords(literal);
}

/**
 * What of a value is written out in the file: the value without its template expressions, or null
 * when that is not a candidate secret (a reference as a whole; under 16 characters or of low
 * entropy once the templates are out).
 */
export function literalPart(value: string): string | null {
  if (WHOLE_REFERENCE.test(value)) return null;
  const literal = value.replace(TEMPLATE_PARTS, '');
  return literal.length >= MIN_LENGTH && shannonEntropy(literal) >= MIN_ENTROPY ? literal : null;
}

/**
 * Whether a value reads as words (`getTokenByRangeStart`, `action_dispatch.secret_key_base`,
 * `/disk/:encoded_token`, `flask-insecure-default-key-replace-me`) rather than as a random string,
 * by its BPE token efficiency. A password a person typed is never words: it mixes words with
 * digits and symbols (`Tr0ub4dor&3horse`), which the tokenizer may still read as a few long pieces.
 */
export function readsAsWords(value: string): boolean {
  const sample = value.slice(0, WORDS_SAMPLE);
  return !looksTyped(sample) && tokenEfficiency(sample) >= WORDS_EFFICIENCY;
}

/**
 * A password as people make them: a symbol after a letter or digit (`Summer2024!`, `P@ss`), or
 * digits inside words twice or more (`Tr0ub4dor`); never a path or URL, whose `?`, `*` and `~` are
 * syntax.
 */
function looksTyped(value: string): boolean {
  if (/[/\\]/.test(value)) return false;
  return (
    /[A-Za-z0-9][!@#%^&*+?~]/.test(value) || (value.match(/[a-z][0-9]{1,2}(?=[a-z])/gi)?.length ?? 0) >= 2
  );
}

export const genericSecret: Rule = {
  id: 'generic-secret',
  title: 'High-entropy secret assigned to a secret-like name',
  description:
    'A quoted value of 16 or more characters, with a Shannon entropy of at least 3.5 bits per character, ' +
    'assigned to a name containing secret, token, password, passwd, api_key or access_key; a reference ' +
    'or template ($' +
    '{VAR}, {{ expr }}, process.env.X) or a value that reads as words (an identifier, a ' +
    'dotted name, a route) is not a literal secret.',
  uncheckable: 'no provider is known for a generic secret',
  remediation:
    'Change it where it was issued (the service, database or account it opens), then read it from the ' +
    'environment or a secret manager instead of the code.',
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
  accept: isLiteralSecret,
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
      `  password: "${TYPED}"`,
      `config.secret_key_base = "${HEX}"`,
    ],
    negatives: [
      `password = "${SAME}"`,
      `  'codehost-token': 'GitHub token: ghp_ or gho_ prefix',`,
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
      // Code that names a secret: an identifier, a dotted name, a route, a CI reference, a template.
      `  getTokenByRangeStart: "${IDENTIFIER}",`,
      `CSRF_TOKEN = "${DOTTED}"`,
      `  disk_token_route = "${ROUTE}"`,
      `  GEM_HOST_API_KEY: "${CI_REF}"`,
      `  password_digest_attribute = "${INTERPOLATED}"`,
    ],
  },
  // Stryker restore all
};
