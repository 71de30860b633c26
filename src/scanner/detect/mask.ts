/**
 * The first four characters, then a fixed run of asterisks. The run is fixed so
 * the mask never tells the secret's length. Counted in code points so a surrogate pair is never split.
 */
const STARS = '*'.repeat(16);

export function maskSecret(secret: string): string {
  let end = 0;
  for (let n = 0; n < 4 && end < secret.length; n++) {
    end += (secret.codePointAt(end) ?? 0) > 0xffff ? 2 : 1;
  }
  return secret.slice(0, end) + STARS;
}
