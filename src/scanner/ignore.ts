import { fingerprintOfIgnoreLine } from './ignore-line.js';

/**
 * `.svcignore`: one ignore line a line (a fingerprint, or its quoted form for a path with control
 * characters, see ignore-line.ts); blank lines and lines starting with `#` are comments; surrounding
 * white space is ignored.
 */
export function parseIgnoreFile(text: string): Set<string> {
  const fingerprints = new Set<string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const fingerprint = fingerprintOfIgnoreLine(line);
    if (fingerprint !== null) fingerprints.add(fingerprint);
  }
  return fingerprints;
}
