import { describe, expect, it } from 'vitest';
import { shannonEntropy } from '../rules/entropy.js';
import { RULES } from '../rules/index.js';
import type { Rule } from '../rules/rule.js';
import { detectSecrets, rulesWokenBy } from './detect-line.js';
import { maskSecret } from './mask.js';
import { isPlaceholder } from './placeholder.js';
import { mayContainSecret, PREFILTER, prefilterKeywords } from './prefilter.js';

// Synthetic values, assembled from parts so this file holds no line the scanner itself reports.
const AKIA = 'AKIA' + 'SVCSYNTHETIC0001';
const GHP = 'ghp' + '_' + 'SvcSynthetic0Codehost0Token0Aa11Bb22';
const XOXB = 'xoxb' + '-' + '1234567890-SvcSyntheticChat';
const AIZA = 'AI' + 'za' + 'SySvc-Synthetic_Web0Api0Key0Aa1Bb2C';
const HIGH = 'Svc9!synth#Q2x$Lm7';
const HIGH15 = HIGH.slice(0, 15);
const STARS = '*'.repeat(16);

const rulesOf = (line: string) => detectSecrets(line).map((m) => m.ruleId);

describe('shannonEntropy', () => {
  it.each([
    ['', 0],
    ['aaaa', 0],
    ['ab', 1],
    ['abcd', 2],
    ['0123456789abcdef', 4],
    ['aabbccddefghijkl', 3.5],
    ['aabbccddeeffghij', 3.25],
  ])('%s has %d bits per character', (s, bits) => {
    expect(shannonEntropy(s)).toBeCloseTo(bits, 10);
  });

  it('counts code points, not UTF-16 units', () => {
    expect(shannonEntropy('\u{1F600}\u{1F600}')).toBe(0);
    expect(shannonEntropy('\u{1F600}a')).toBe(1);
  });
});

describe('isPlaceholder', () => {
  it.each([
    'EXAMPLE',
    'xxExampleXX',
    'placeholder',
    'my-Dummy-key',
    'CHANGEME',
    'changeMe123',
    'ReDaCtEd',
  ])('%s is a placeholder', (v) => expect(isPlaceholder(v)).toBe(true));
  it.each(['', 'Svc9!synth#Q2x$Lm7', 'exampl', 'change-me', 'dumm'])('%s is not', (v) =>
    expect(isPlaceholder(v)).toBe(false));
});

describe('maskSecret', () => {
  it('keeps four characters and a fixed sixteen asterisks, whatever the length', () => {
    expect(maskSecret(AKIA)).toBe('AKIA' + STARS);
    expect(maskSecret(HIGH + HIGH + HIGH)).toBe('Svc9' + STARS);
    expect(maskSecret('abc')).toBe('abc' + STARS);
  });
  it('never splits a surrogate pair', () => {
    expect(maskSecret('\u{1F600}bcdef')).toBe('\u{1F600}bcd' + STARS);
    // U+FFFF is the last code point of one UTF-16 unit.
    expect(maskSecret('\uffffabcdef')).toBe('\uffffabc' + STARS);
  });
});

describe('prefilter', () => {
  it('is one global, case-insensitive regex', () => {
    expect(PREFILTER.flags).toBe('gi');
  });

  it('covers every keyword of every rule, in any case', () => {
    for (const k of RULES.flatMap((r) => r.keywords)) {
      expect(mayContainSecret(`x ${k.toUpperCase()} y`)).toBe(true);
      expect(prefilterKeywords().some((kept) => k.includes(kept))).toBe(true);
    }
  });

  it('lowercases, deduplicates, drops what a shorter keyword covers, and sorts', () => {
    const rules = [
      { keywords: ['Token', 'api_key'] },
      { keywords: ['TOKEN', 'apikey', 'my_token_x'] },
      { keywords: ['akia', 'api'] },
    ] as unknown as Rule[];
    expect(prefilterKeywords(rules)).toEqual(['akia', 'api', 'token']);
    expect(prefilterKeywords([{ keywords: ['b.c', 'a+'] }] as unknown as Rule[])).toEqual(['a+', 'b.c']);
  });

  it('drops keywords another keyword already covers', () => {
    expect(prefilterKeywords()).toContain('passw');
    expect(prefilterKeywords()).not.toContain('password');
  });

  it('passes ordinary lines by', () => {
    expect(mayContainSecret('const total = items.reduce((a, b) => a + b, 0);')).toBe(false);
    expect(mayContainSecret('')).toBe(false);
  });

  it('is stateless across calls', () => {
    const line = `x = "${GHP}"`;
    expect([1, 2, 3].map(() => mayContainSecret(line))).toEqual([true, true, true]);
  });
});

describe('the rules a line wakes', () => {
  it('are only those whose keywords it holds, in any case', () => {
    expect(rulesWokenBy('id = AKIA0000')).toEqual(['cloud-access-key-id']);
    expect(rulesWokenBy('id = akia0000')).toEqual(['cloud-access-key-id']);
    expect(rulesWokenBy(`${'-'.repeat(5)}BEGIN RSA PRIVATE KEY`)).toEqual(['private-key']);
    expect(rulesWokenBy('const total = 1;')).toEqual([]);
  });

  it('are each woken once, however many of their keywords the line holds', () => {
    expect(rulesWokenBy('PASSWORD token secret api_key')).toEqual(['generic-secret']);
    expect(rulesWokenBy('token = ghp_x, Sk_Live_y').sort()).toEqual(
      ['codehost-token', 'generic-secret', 'payment-live-key'].sort(),
    );
  });
});

describe('detectSecrets', () => {
  it('reports a specific token once, not again as a generic secret', () => {
    expect(rulesOf(`token = "${GHP}"`)).toEqual(['codehost-token']);
    expect(rulesOf(`password: "${AKIA}"`)).toEqual(['cloud-access-key-id']);
    expect(rulesOf(`api_key = 'Bearer ${AIZA}'`)).toEqual(['webapi-key']);
  });

  it('reports several rules on one line, in line order, with offsets', () => {
    const line = `env AWS=${AKIA} GH=${GHP} CHAT=${XOXB} {"secret": "${HIGH}"}`;
    const found = detectSecrets(line);
    expect(found.map((m) => m.ruleId)).toEqual([
      'cloud-access-key-id',
      'codehost-token',
      'chat-token',
      'generic-secret',
    ]);
    for (const m of found) expect(line.slice(m.start, m.end)).toBe(m.secret);
  });

  it('reports every match of one rule on a line (the caller keeps one finding per fingerprint)', () => {
    expect(rulesOf(`${AKIA},${'ASIA' + 'SVCSYNTHETIC0002'}`)).toEqual([
      'cloud-access-key-id',
      'cloud-access-key-id',
    ]);
  });

  it('gives the same answer every time (no lastIndex left behind)', () => {
    const line = `a=${AKIA} token: "${HIGH}"`;
    expect(detectSecrets(line)).toEqual(detectSecrets(line));
    for (const rule of RULES) expect(rule.pattern.lastIndex).toBe(0);
  });

  it.each([
    ['JSON', `  "apiKey": "${HIGH}",`],
    ['JSON, single-quoted name', `{'api_key': '${HIGH}'}`],
    ['YAML', `access-key: '${HIGH}'`],
    ['Go', `\tsecret := "${HIGH}"`],
    ['Ruby hash rocket', `  :token => "${HIGH}",`],
    ['PHP array', `  'db_password' => '${HIGH}',`],
    ['.env', `CLIENT_SECRET="${HIGH}"`],
    ['Python keyword argument', `connect(passwd="${HIGH}")`],
    ['dotted name', `spring.datasource.password: "${HIGH}"`],
    ['upper case', `ACCESS_KEY = "${HIGH}"`],
    ['no separator', `AccessKey = "${HIGH}"`],
    ['hyphen', `x-api-key: "${HIGH}"`],
    ['TypeScript annotation', `const apiKey: string = "${HIGH}";`],
    ['Python annotation', `API_TOKEN: str = '${HIGH}'`],
    ['Kotlin nullable annotation', `val secret: String? = "${HIGH}"`],
    ['other quote inside', `password = "it's-${HIGH}"`],
  ])('finds a generic secret in %s', (_kind, line) => {
    const found = detectSecrets(line);
    expect(found.map((m) => m.ruleId)).toEqual(['generic-secret']);
    expect(found[0]!.maskedValue).toBe(found[0]!.secret.slice(0, 4) + STARS);
    expect(found[0]!.secret).toContain(HIGH);
  });

  it.each([
    ['entropy below 3.5', 'password = "aabbccddeeffghij"'],
    ['15 characters', `password = "${HIGH15}"`],
    ['unquoted', `password = ${HIGH}`],
    ['backticks', `password = \`${HIGH}\``],
    ['comparison', `if (password == "${HIGH}") {`],
    ['annotation without a value', `password: string, note = "${HIGH}"`],
    ['unclosed quote', `password = "${HIGH}`],
    ['name without a secret word', `username = "${HIGH}"`],
    ['api and key apart', `api.key = "${HIGH}"`],
    ['placeholder', `token = "${HIGH}-REDACTED"`],
    ['placeholder in a specific token', `token = "${'ghp' + '_' + 'ExampleExampleExampleExampleExample1'}"`],
  ])('finds nothing for %s', (_kind, line) => {
    expect(detectSecrets(line)).toEqual([]);
  });

  it('accepts entropy of exactly 3.5 and 16 characters', () => {
    const edge = 'aabbccddefghijkl';
    expect(rulesOf(`password = "${edge}"`)).toEqual(['generic-secret']);
  });

  it('masks a private key by its type', () => {
    const header = (t: string) => '-----BEGIN ' + t + 'PRIVATE KEY-----';
    expect(detectSecrets(header('RSA '))[0]!.maskedValue).toBe('RSA');
    expect(detectSecrets(header(''))[0]!.maskedValue).toBe('PRIVATE KEY');
    expect(detectSecrets('-----BEGIN ' + 'PGP PRIVATE KEY BLOCK-----')[0]!.maskedValue).toBe('PGP');
  });

  // How fast these run is measured by `npm run bench:hot-paths`, not asserted here: a unit test states
  // what is found. A regex that backtracks catastrophically on 5 MB takes hours, not seconds, and the
  // per-test timeout below (far above any machine's time for a linear scan) turns that into a failure.
  const LINEAR_SCAN_TIMEOUT_MS = 30_000;

  it(
    'handles a 5 MB minified line and still finds what is in it',
    () => {
      const chunk = 'var a=function(e,t){return e.token?e.secret:t.apiKey};x="ab12cd34ef";';
      const line = chunk.repeat(Math.ceil(5e6 / chunk.length)) + `k="${AKIA}";`;
      expect(rulesOf(line)).toEqual(['cloud-access-key-id']);
    },
    LINEAR_SCAN_TIMEOUT_MS,
  );

  it.each([
    ['one long word', 'a'.repeat(5e6), []],
    ['repeated secret word', 'token'.repeat(1e6), []],
    ['repeated assignments', 'token="'.repeat(7e5), []],
    ['unclosed 5 MB value', 'password="' + 'x1Y2'.repeat(125e4), []],
    ['5 MB of spaces after a name', 'secret' + ' '.repeat(5e6) + '=', []],
    ['a 5 MB type annotation', 'password: ' + 'a'.repeat(5e6), []],
    ['repeated annotations', 'token: a'.repeat(6e5), []],
    ['repeated token prefixes', 'xoxb-'.repeat(1e6), ['chat-token:5000000']],
  ])(
    'does not backtrack catastrophically on %s',
    (_kind, line, found) => {
      expect(detectSecrets(line).map((m) => `${m.ruleId}:${m.secret.length}`)).toEqual(found);
    },
    LINEAR_SCAN_TIMEOUT_MS,
  );

  it('finds a 5 MB quoted value without overflowing the stack', () => {
    const value = 'x1Y2z3W4aB5cD6eF'.repeat(3125e2);
    const found = detectSecrets(`token = "${value}"`);
    expect(found.map((m) => [m.ruleId, m.secret.length, m.maskedValue])).toEqual([
      ['generic-secret', value.length, 'x1Y2' + STARS],
    ]);
  });
});
