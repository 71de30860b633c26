/**
 * `.svcignore` (spec 2.5, contract 1): one fingerprint a line; blank lines and lines starting with `#`
 * are comments; surrounding white space is ignored.
 */
export function parseIgnoreFile(text: string): Set<string> {
  const fingerprints = new Set<string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    fingerprints.add(line);
  }
  return fingerprints;
}
