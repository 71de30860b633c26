import semver from 'semver';

/**
 * Version ranges as the registries' own tools read them, for the clients that resolve a typed range
 * (npm, crates.io) or order versions (the Go module proxy). npm's own library, `semver`, does the
 * work: the npm dialect is its own, and cargo's requirement syntax is translated into it (a bare
 * version is a caret, commas are "and"; nothing else differs). Measured against the hand-written
 * subset it replaced: docs/ARCHITECTURE.md ("Version ranges").
 */

export type SemVer = semver.SemVer;
export type Range = semver.Range;

/** A full version (`1.2.3`, `1.2.3-beta.1+build`, `v1.2.3`), or null. */
export function parseSemver(text: string): SemVer | null {
  return semver.parse(text.trim());
}

/** Semver precedence: negative when a is lower, 0 when equal, positive when higher. */
export function compareSemver(a: SemVer, b: SemVer): number {
  return semver.compare(a, b);
}

/** Whether a version text is the same version as `v` (build metadata ignored). */
export function sameVersion(text: string, v: SemVer): boolean {
  const parsed = parseSemver(text);
  return parsed !== null && semver.eq(parsed, v);
}

/** One cargo comparator: an operator or none, then a version whose parts may be `*`. */
const CARGO_COMPARATOR =
  /^(=|>=|<=|>|<|~|\^)?\s*(\d+|\*)(?:\.(\d+|\*))?(?:\.(\d+|\*))?(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

/** Cargo's requirement as npm range text, or null when it is not cargo syntax. */
function cargoAsNpm(text: string): string | null {
  const comparators = text.split(',').map((c) => c.trim());
  const out: string[] = [];
  for (const c of comparators) {
    const m = CARGO_COMPARATOR.exec(c);
    if (m === null) return null;
    const body = c.slice(m[1]?.length ?? 0).trim();
    // A bare version is a caret requirement in cargo (`1.2` = `^1.2`); a wildcard (`*`, `1.2.*`) is
    // the same x-range in both.
    out.push(m[1] !== undefined ? `${m[1]}${body}` : body.includes('*') ? body : `^${body}`);
  }
  return out.join(' ');
}

/** A range in npm's or cargo's syntax, or null when the text is not one. */
export function parseRange(text: string, dialect: 'npm' | 'cargo'): Range | null {
  const source = dialect === 'npm' ? text : cargoAsNpm(text);
  if (source === null || (source.trim() === '' && dialect === 'cargo')) return null;
  try {
    return new semver.Range(source);
  } catch {
    return null;
  }
}

/** Whether `version` is in the range (prereleases only where the range names one of that version). */
export function satisfies(version: string, range: Range): boolean {
  return semver.satisfies(version, range);
}

/** The highest of `versions` in the range, or null. */
export function maxSatisfying(versions: Iterable<string>, range: Range): string | null {
  return semver.maxSatisfying([...versions], range);
}
