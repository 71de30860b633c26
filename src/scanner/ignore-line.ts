/**
 * The ignore line of a finding: how its fingerprint is written in the human reports and in
 * `.svcignore`, so that the line a report prints, pasted into `.svcignore`, lists that finding.
 *
 * A fingerprint is `<rule>:<commit 12>:<path>:<line>`, and a path may hold any character git allows.
 * Most are written as they are. The characters a report never prints raw (C0 and C1 controls, DEL,
 * bidirectional marks, overrides and isolates: they could drive a terminal, split a line or reorder
 * what a reviewer reads) cannot be: a fingerprint holding any of them is written as a JSON string
 * literal, with those characters, `"` and `\` escaped (`"secret-key:0123456789ab:a\u0009b.env:3"`).
 * A plain fingerprint starts with its rule id, never with `"`, so the two forms cannot be confused and
 * every fingerprint written before this form existed still reads as itself.
 */

/** What a report never prints raw. Shared with the reports' display escaping. */
export const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const UNPRINTABLE_ALL = new RegExp(UNPRINTABLE.source, 'g');
const QUOTED_ESCAPES = new RegExp(`["\\\\]|${UNPRINTABLE.source}`, 'g');

/** `\u` and four hex digits: one form for every escaped character, in reports and ignore lines alike. */
function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** `s` with every unprintable character shown as its `\uXXXX` escape. */
export function escapeUnprintable(s: string): string {
  return s.replace(UNPRINTABLE_ALL, unicodeEscape);
}

/** The line to write in `.svcignore` for this fingerprint: the fingerprint itself when it is printable. */
export function ignoreLineOf(fingerprint: string): string {
  if (!UNPRINTABLE.test(fingerprint)) return fingerprint;
  return `"${fingerprint.replace(QUOTED_ESCAPES, (c) => (c === '"' || c === '\\' ? `\\${c}` : unicodeEscape(c)))}"`;
}

/**
 * The fingerprint an ignore line (already trimmed) lists: the inverse of `ignoreLineOf`. A line
 * starting with `"` is read as a JSON string literal (so `\t` and `\n` are accepted too); one that
 * is not a valid literal lists nothing. Any other line is the fingerprint as written.
 */
export function fingerprintOfIgnoreLine(line: string): string | null {
  if (!line.startsWith('"')) return line;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}
