/**
 * Shannon entropy in bits per character, over the string's code points ("bits per
 * character, over the value's characters"). The empty string has entropy 0.
 */
export function shannonEntropy(s: string): number {
  const counts = new Map<string, number>();
  let total = 0;
  for (const ch of s) {
    counts.set(ch, (counts.get(ch) ?? 0) + 1);
    total++;
  }
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / total;
    bits -= p * Math.log2(p);
  }
  return bits;
}
