/**
 * Self-reported repositories of `GET /api/action/binary` (`codehostb_project=` and `repo=`, paid plans):
 * `repo=<owner>/<name>` for GitHub and `codehostb_project=<group>/<project>` for GitLab.
 *
 * The value is validated, not resolved: it names a repository by the platform's own rules, and the
 * service takes the caller's word for it (paid plans only). Surrounding white space is dropped; case is
 * kept as given (both platforms resolve names case-insensitively, so compare case-folded where identity
 * matters).
 */
export type RepositoryKind = 'a' | 'b';

/** GitHub owners and repository names: letters, digits, `_`, `.`, `-`. */
const SEGMENT_A = /^[A-Za-z0-9_.-]{1,100}$/;
/**
 * GitLab namespace and project paths: letters, digits, `_`, `.`, `-`, never starting with `-`
 * (the platform's own path rule).
 */
const SEGMENT_B = /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,254}$/;
/** GitLab nests at most 20 subgroups below a top-level group, then the project. */
const MAX_SEGMENTS_B = 22;

/** The normalized `owner/name` or `group/.../project`, or null when the value is missing or malformed. */
export function parseRepositoryParam(kind: RepositoryKind, value: string | undefined): string | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.length > 2048) return null;
  const segments = trimmed.split('/');
  if (kind === 'a') {
    return segments.length === 2 && segments.every((s) => SEGMENT_A.test(s) && !isDotSegment(s))
      ? trimmed
      : null;
  }
  return segments.length >= 2 &&
    segments.length <= MAX_SEGMENTS_B &&
    segments.every((s) => SEGMENT_B.test(s) && !isDotSegment(s) && !hasReservedSuffixB(s))
    ? trimmed
    : null;
}

function isDotSegment(s: string): boolean {
  return s === '.' || s === '..';
}

/** GitLab refuses paths ending in `.git` or `.atom`: such a segment names no project. */
function hasReservedSuffixB(s: string): boolean {
  const lower = s.toLowerCase();
  return lower.endsWith('.git') || lower.endsWith('.atom');
}
