import { describe, expect, it } from 'vitest';
import { detectSecrets } from '../detect/detect-line.js';
import type { RuleId } from '../types.js';

/**
 * Each rule's edges, one row a case: the prefix set, the length, the characters that may and may not
 * touch a token on either side, and letter case. The rule files' samples show typical lines; these
 * rows pin where each pattern starts and stops. Values are assembled from parts, so this file holds
 * no line the scanner reports (rules.test.ts scans this folder).
 */
const AKIA = 'AK' + 'IA';
const ASIA = 'AS' + 'IA';
const K16 = 'SVCSYNTHETIC0001';
const GH = (c: string) => 'gh' + c + '_';
const T36 = 'Ab1'.repeat(12);
const PAT = 'codehost' + '_pat_';
const P82 = 'Ab_1'.repeat(20) + 'Zz';
const XOX = (c: string) => 'xo' + 'x' + c + '-';
const LIVE = (c: string) => c + 'k_' + 'live_';
const L24 = 'Ab1'.repeat(8);
const AIZA = 'AI' + 'za';
const W35 = 'Ab_-1'.repeat(7);
/** 16 characters, 16 distinct: entropy 4 bits a character. */
const G16 = 'Zq8' + 'Wm3Kx7Rt2Vn5P';

/** [rule, line, the secrets that rule finds in it] */
type Row = [RuleId, string, string[]];

const rows: Row[] = [
  // cloud-access-key-id: AKIA or ASIA and exactly 16 of A-Z0-9, upper case, not inside a longer run.
  ['cloud-access-key-id', `id=${AKIA}${K16}`, [AKIA + K16]],
  ['cloud-access-key-id', `${ASIA}${K16}`, [ASIA + K16]],
  ['cloud-access-key-id', `-${AKIA}${K16}-`, [AKIA + K16]],
  ['cloud-access-key-id', `a${AKIA}${K16}a`, [AKIA + K16]],
  ['cloud-access-key-id', `X${AKIA}${K16}`, []],
  ['cloud-access-key-id', `9${AKIA}${K16}`, []],
  ['cloud-access-key-id', `${AKIA}${K16}X`, []],
  ['cloud-access-key-id', `${AKIA}${K16}7`, []],
  ['cloud-access-key-id', `${AKIA}${K16.slice(1)}`, []],
  ['cloud-access-key-id', `${AKIA}${K16.toLowerCase()}`, []],
  ['cloud-access-key-id', `AKIB${K16}`, []],
  // codehost-token: ghp/gho/ghu/ghs/ghr, an underscore, exactly 36 alphanumerics.
  ...['p', 'o', 'u', 's', 'r'].map((c): Row => ['codehost-token', `t=${GH(c)}${T36}`, [GH(c) + T36]]),
  ['codehost-token', `${GH('x')}${T36}`, []],
  ['codehost-token', `${GH('p')}${T36.slice(1)}`, []],
  ['codehost-token', `${GH('p')}${T36}a`, []],
  ['codehost-token', `a${GH('p')}${T36}`, []],
  ['codehost-token', `_${GH('p')}${T36}_`, [GH('p') + T36]],
  // codehost-fine-grained-pat: exactly 82 of A-Za-z0-9_, not inside a longer run of them.
  ['codehost-fine-grained-pat', `${PAT}${P82}`, [PAT + P82]],
  ['codehost-fine-grained-pat', `"${PAT}${P82}"`, [PAT + P82]],
  ['codehost-fine-grained-pat', `${PAT}${P82.slice(1)}`, []],
  ['codehost-fine-grained-pat', `${PAT}${P82}_`, []],
  ['codehost-fine-grained-pat', `_${PAT}${P82}`, []],
  // chat-token: xoxa/b/p/r/s, a dash, 10 or more of A-Za-z0-9-, taken whole.
  ...['a', 'b', 'p', 'r', 's'].map(
    (c): Row => ['chat-token', `t=${XOX(c)}1234567890`, [`${XOX(c)}1234567890`]],
  ),
  ['chat-token', `${XOX('c')}1234567890`, []],
  ['chat-token', `${XOX('b')}123456789`, []],
  ['chat-token', `${XOX('b')}12345-67890-Ab!`, [`${XOX('b')}12345-67890-Ab`]],
  ['chat-token', `-${XOX('b')}1234567890`, []],
  ['chat-token', `a${XOX('b')}1234567890`, []],
  ['chat-token', `_${XOX('b')}1234567890`, [`${XOX('b')}1234567890`]],
  // payment-live-key: sk or rk, _live_, 24 or more alphanumerics, taken whole.
  ['payment-live-key', `${LIVE('s')}${L24}`, [LIVE('s') + L24]],
  ['payment-live-key', `${LIVE('r')}${L24}`, [LIVE('r') + L24]],
  ['payment-live-key', `${LIVE('r')}${L24}xyz_rest`, [`${LIVE('r')}${L24}xyz`]],
  ['payment-live-key', `${LIVE('p')}${L24}`, []],
  ['payment-live-key', `${LIVE('s')}${L24.slice(1)}`, []],
  ['payment-live-key', `a${LIVE('s')}${L24}`, []],
  ['payment-live-key', `_${LIVE('s')}${L24}`, [LIVE('s') + L24]],
  // webapi-key: AIza and exactly 35 of A-Za-z0-9_-, not inside a longer run of them.
  ['webapi-key', `k=${AIZA}${W35}`, [AIZA + W35]],
  ['webapi-key', `.${AIZA}${W35}.`, [AIZA + W35]],
  ['webapi-key', `${AIZA}${W35.slice(1)}`, []],
  ['webapi-key', `${AIZA}${W35}-`, []],
  ['webapi-key', `-${AIZA}${W35}`, []],
  ['webapi-key', `_${AIZA}${W35}`, []],
  ['webapi-key', `AIzb${W35}`, []],
  // generic-secret: a secret-like name, an assignment, a quoted value of 16+ characters with no white
  // space, entropy of 3.5 bits or more, not a reference to where the secret lives.
  ...[
    'passwd',
    'password',
    'db_password',
    'api_key',
    'api-key',
    'apikey',
    'access_key',
    'access-key',
    'accesskey',
    'my.token',
    'clientSecret',
  ].map((name): Row => ['generic-secret', `${name} = "${G16}"`, [G16]]),
  ...[':=', '=>', '=', ':', ': string =', ': String? =', ': a.B ='].map(
    (op): Row => ['generic-secret', `token ${op} '${G16}'`, [G16]],
  ),
  ['generic-secret', `"token": "${G16}"`, [G16]],
  ['generic-secret', `token="${G16}"`, [G16]],
  ['generic-secret', `token = "${G16.slice(1)}"`, []],
  ['generic-secret', `token = "${G16.slice(0, 8)} ${G16.slice(8)}"`, []],
  ['generic-secret', `token == "${G16}"`, []],
  ['generic-secret', `token = "${G16}'`, []],
  ['generic-secret', `passd = "${G16}"`, []],
  ['generic-secret', `x-token = "${G16}"`, [G16]],
  ['generic-secret', `token = "${'aabbccdd'.repeat(2)}"`, []],
  ...[
    '$' + '{A_B}',
    '$' + 'A_B_C_D_E_F_G_H_I',
    '%(a_secret)s',
    '%(a_secret)d',
    '#' + '{a_secret_1}',
    '<your-secret-here>',
  ].map((ref): Row => ['generic-secret', `token = "${ref}"`, []]),
  ['generic-secret', `token = "x$` + `{A_B}${G16}"`, [`x$` + `{A_B}${G16}`]],
];

describe('rule boundaries', () => {
  it.each(rows)('%s in %s: %j', (ruleId, line, secrets) => {
    expect(
      detectSecrets(line)
        .filter((m) => m.ruleId === ruleId)
        .map((m) => m.secret),
    ).toEqual(secrets);
  });
});

describe('several findings on one line', () => {
  const G2 = 'Yp4' + 'Tn8Hd2Lk6Fs1Q';
  it('come in line order, whatever the order of the rules', () => {
    // webapi-key comes after cloud-access-key-id in RULES, and generic-secret last.
    const line = `a = "${AIZA}${W35}" token = "${G16}" id=${AKIA}${K16}`;
    expect(detectSecrets(line).map((m) => m.ruleId)).toEqual([
      'webapi-key',
      'generic-secret',
      'cloud-access-key-id',
    ]);
  });

  it('keep a generic value that lies before or after a specific token, not one that overlaps it', () => {
    const before = `token = "${G16}" ${AKIA}${K16}`;
    expect(detectSecrets(before).map((m) => m.ruleId)).toEqual(['generic-secret', 'cloud-access-key-id']);
    const inside = 'token = "' + GH('p') + T36 + '"';
    expect(detectSecrets(inside).map((m) => m.ruleId)).toEqual(['codehost-token']);
  });

  it('include two assignments with nothing between them', () => {
    expect(detectSecrets(`token="${G16}"secret="${G2}"`).map((m) => m.secret)).toEqual([G16, G2]);
  });
});
