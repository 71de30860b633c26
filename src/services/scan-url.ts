import { invalidInput } from './errors.js';

/** Longer than any real repository URL; a longer one is refused before it is parsed. */
export const MAX_SCAN_URL_LENGTH = 2048;

/** An owner or repository name: what the code hosts allow, never `.` or `..` (checked apart). */
const SEGMENT = /^[A-Za-z0-9_.-]{1,100}$/;

export interface ScanTarget {
  /** The URL git clones: `<origin>/<owner>/<name>` as given (`.git` kept), no trailing slash. */
  url: string;
  /** Which allowed origin it is on (`https://github.com`, `http://127.0.0.1:8123`). */
  origin: string;
}

/**
 * A dashboard scan's URL, checked before anything is queued: `https://HOST/OWNER/NAME(.git)?` on an
 * allowed origin (SVC_SCAN_HOSTS, as origins), or plain http only where a full http origin is
 * allowed. Everything else is refused with the reason: other hosts and schemes (file, ssh, scp-style
 * `git@host:`), credentials, queries and fragments, encoded or dot segments (the host must see the
 * path the user saw), and deeper paths. Throws invalid-input; the message never repeats the URL.
 */
export function parseScanUrl(input: unknown, allowedOrigins: readonly string[]): ScanTarget {
  if (typeof input !== 'string' || input === '') throw invalidInput('url is required (a string)');
  if (input.length > MAX_SCAN_URL_LENGTH) {
    throw invalidInput(`url is too long (at most ${MAX_SCAN_URL_LENGTH} characters)`);
  }
  // Control characters and spaces: WHATWG parsing strips some of them silently.
  if (/[\u0000-\u0020\u007f\\]/.test(input))
    throw invalidInput('url contains spaces, control characters or "\\"');
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(input)?.[1]?.toLowerCase();
  if (scheme !== 'https' && scheme !== 'http') {
    throw invalidInput('only https:// repository URLs can be scanned (not ssh, git@, file or others)');
  }
  if (!URL.canParse(input)) throw invalidInput('url is not a valid URL');
  const parsed = new URL(input);
  if (parsed.username !== '' || parsed.password !== '' || /^[^/]*\/\/[^/]*@/.test(input)) {
    throw invalidInput('url must not contain credentials: only public repositories are scanned');
  }
  if (input.includes('?') || input.includes('#')) throw invalidInput('url must not have a query or fragment');
  if (!allowedOrigins.includes(parsed.origin)) {
    // Not which hosts are: SVC_SCAN_HOSTS may name internal origins (a loopback or private git
    // server), and the answer goes to anyone with an account (issue 29).
    throw invalidInput(
      scheme === 'http' && allowedOrigins.includes(`https://${parsed.host}`)
        ? 'only https:// repository URLs can be scanned'
        : "url's host is not allowed",
    );
  }
  // The path as typed, not as parsed: parsing resolves `..` and would hide a traversal.
  const rawPath = input.replace(/^[A-Za-z]+:\/\/[^/]*/, '').replace(/\/$/, '');
  const segments = rawPath.split('/').slice(1);
  if (
    segments.length !== 2 ||
    !segments.every((s) => SEGMENT.test(s) && !/^\.+$/.test(s)) ||
    segments[1] === '.git'
  ) {
    throw invalidInput('url must name a repository as https://HOST/OWNER/NAME');
  }
  return { url: `${parsed.origin}/${segments[0]}/${segments[1]}`, origin: parsed.origin };
}
