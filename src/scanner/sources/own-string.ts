/**
 * A copy of `text` that holds no other string. The listing's ids and paths are slices of the strings
 * its output was read into, and V8 keeps a slice's whole parent alive: kept as map keys, they held
 * all of `git log --raw`'s output (21 MB on a 39,000-commit history) until the scan ended. Below
 * blob-table.ts and request-order.ts, which both keep such keys (and so that neither imports the
 * other for it).
 */
export function ownString(text: string): string {
  return Buffer.from(text, 'latin1').toString('latin1');
}
