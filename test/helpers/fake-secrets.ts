/**
 * Synthetic credentials in each provider's real format. Deterministic (a seeded generator), so report
 * goldens and fingerprints are stable, and obviously fake: none was ever issued by a provider.
 */
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;

/** `length` characters of `charset`, from a small linear congruential generator seeded by `seed`. */
export function fakeChars(charset: string, length: number, seed: number): string {
  let state = seed >>> 0 || 1;
  let out = '';
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out += charset[(state >>> 16) % charset.length];
  }
  return out;
}

export function fakeCloudKeyId(seed = 1): string {
  return `AKIA${fakeChars(UPPER + DIGITS, 16, seed)}`;
}
export function fakeCodehostToken(seed = 2): string {
  return `ghp_${fakeChars(ALNUM, 36, seed)}`;
}
export function fakeFineGrainedPat(seed = 3): string {
  return `codehost_pat_${fakeChars(`${ALNUM}_`, 82, seed)}`;
}
export function fakeChatToken(seed = 4): string {
  return `xoxb-${fakeChars(DIGITS, 12, seed)}-${fakeChars(DIGITS, 13, seed + 1)}-${fakeChars(ALNUM, 24, seed + 2)}`;
}
export function fakePaymentKey(seed = 5): string {
  return `sk_live_${fakeChars(ALNUM, 32, seed)}`;
}
export function fakeWebApiKey(seed = 6): string {
  return `AIza${fakeChars(`${ALNUM}_-`, 35, seed)}`;
}
/** A high-entropy value for `generic-secret` (a quoted value assigned to a secret-like name). */
export function fakeGenericValue(seed = 7): string {
  return fakeChars(ALNUM, 24, seed);
}
export const PRIVATE_KEY_BLOCK = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun',
  '-----END RSA PRIVATE KEY-----',
].join('\n');
