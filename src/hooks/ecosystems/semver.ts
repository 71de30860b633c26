/**
 * A small semantic-versioning subset, shared by the registry clients that resolve a typed range
 * (npm, crates.io) or order versions (the Go module proxy): enough to resolve the ranges people type
 * on an install line.
 *
 * npm dialect: `^ ~ ~> = < <= > >=`, x-ranges (`1`, `1.x`, `1.2.*`, `*`), hyphen ranges, `||`, a bare
 * version is exact. Cargo dialect: comparators separated by commas, a bare version is a caret.
 * Prereleases match only a set that names a prerelease of the same major.minor.patch (as both do).
 */

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  pre: readonly (string | number)[];
}

interface Comparator {
  op: '<' | '<=' | '>' | '>=' | '=';
  v: SemVer;
}

/** One AND-set of comparators; `never` when it can match nothing (`>*`, `<0.0.0`...). */
interface ComparatorSet {
  comparators: Comparator[];
  /** `major.minor.patch` of the prereleases named in the set. */
  preTuples: Set<string>;
  never: boolean;
}

export type Range = ComparatorSet[];

const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/;

/** A full version (`1.2.3`, `1.2.3-beta.1+build`, `v1.2.3`), or null. */
export function parseSemver(text: string): SemVer | null {
  const m = SEMVER.exec(text.trim());
  if (!m) return null;
  return {
    major: Number(m[1]),
    minor: Number(m[2]),
    patch: Number(m[3]),
    pre: m[4] === undefined ? [] : m[4].split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)),
  };
}

/** Semver precedence: negative when a is lower, 0 when equal, positive when higher. */
export function compareSemver(a: SemVer, b: SemVer): number {
  if (a.major !== b.major) return a.major - b.major;
  if (a.minor !== b.minor) return a.minor - b.minor;
  if (a.patch !== b.patch) return a.patch - b.patch;
  return comparePrerelease(a.pre, b.pre);
}

/**
 * Pre-release precedence, shared by semver and NuGet: a release outranks any pre-release; then
 * identifier by identifier, numbers numerically and below words, words in ASCII order, and a
 * shorter list below a longer one it begins.
 */
export function comparePrerelease(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  if (a.length === 0 || b.length === 0) return b.length - a.length;
  const numeric = (v: string | number) => typeof v === 'number' || /^\d+$/.test(v);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const xn = numeric(x);
    const yn = numeric(y);
    if (xn && yn) return Number(x) - Number(y);
    if (xn !== yn) return xn ? -1 : 1;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

/** Whether a version text is the same version as `v` (build metadata ignored). */
export function sameVersion(text: string, v: SemVer): boolean {
  const parsed = parseSemver(text);
  return parsed !== null && compareSemver(parsed, v) === 0;
}

const PARTIAL =
  /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/;
const TOKEN = /^(<=|>=|<|>|=|\^|~>|~)?(.*)$/;

interface Partial {
  major: number | null;
  minor: number | null;
  patch: number | null;
  pre: (string | number)[];
}

function parsePartial(text: string): Partial | null {
  const m = PARTIAL.exec(text);
  if (!m) return null;
  const num = (s: string | undefined) => (s === undefined || /^[xX*]$/.test(s) ? null : Number(s));
  const major = num(m[1]);
  const minor = major === null ? null : num(m[2]);
  const patch = minor === null ? null : num(m[3]);
  const pre =
    patch === null || m[4] === undefined ? [] : m[4].split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  return { major, minor, patch, pre };
}

const sv = (major: number, minor: number, patch: number, pre: (string | number)[] = []): SemVer => ({
  major,
  minor,
  patch,
  pre,
});

/** The comparators one operator and partial version stand for; null when they can match nothing. */
function desugar(op: string, p: Partial): Comparator[] | null {
  const { major: M, minor: m, patch: pt, pre } = p;
  if (M === null) return op === '<' || op === '>' ? null : [];
  const lower = (minor: number, patch: number, withPre = true): Comparator => ({
    op: '>=',
    v: sv(M, minor, patch, withPre ? pre : []),
  });
  switch (op) {
    case '':
    case '=':
      if (m === null) return [lower(0, 0), { op: '<', v: sv(M + 1, 0, 0) }];
      if (pt === null) return [lower(m, 0), { op: '<', v: sv(M, m + 1, 0) }];
      return [{ op: '=', v: sv(M, m, pt, pre) }];
    case '^':
      if (m === null) return [lower(0, 0), { op: '<', v: sv(M + 1, 0, 0) }];
      if (M > 0) return [lower(m, pt ?? 0), { op: '<', v: sv(M + 1, 0, 0) }];
      if (pt === null || m > 0) return [lower(m, pt ?? 0), { op: '<', v: sv(0, m + 1, 0) }];
      return [lower(0, pt), { op: '<', v: sv(0, 0, pt + 1) }];
    case '~':
    case '~>':
      if (m === null) return [lower(0, 0), { op: '<', v: sv(M + 1, 0, 0) }];
      return [lower(m, pt ?? 0), { op: '<', v: sv(M, m + 1, 0) }];
    case '>':
      if (m === null) return [{ op: '>=', v: sv(M + 1, 0, 0) }];
      if (pt === null) return [{ op: '>=', v: sv(M, m + 1, 0) }];
      return [{ op: '>', v: sv(M, m, pt, pre) }];
    case '>=':
      return [lower(m ?? 0, pt ?? 0)];
    case '<':
      return [{ op: '<', v: sv(M, m ?? 0, pt ?? 0, pre) }];
    case '<=':
      if (m === null) return [{ op: '<', v: sv(M + 1, 0, 0) }];
      if (pt === null) return [{ op: '<', v: sv(M, m + 1, 0) }];
      return [{ op: '<=', v: sv(M, m, pt, pre) }];
    default:
      return null;
  }
}

/** A range in npm's or cargo's syntax, or null when the text is not one. */
export function parseRange(text: string, dialect: 'npm' | 'cargo'): Range | null {
  const alternatives = dialect === 'npm' ? text.split('||') : [text];
  const sets: ComparatorSet[] = [];
  for (const alternative of alternatives) {
    const set: ComparatorSet = { comparators: [], preTuples: new Set(), never: false };
    const add = (op: string, partialText: string): boolean => {
      const partial = parsePartial(partialText);
      if (partial === null) return false;
      if (partial.pre.length > 0) set.preTuples.add(`${partial.major}.${partial.minor}.${partial.patch}`);
      const comparators = desugar(op, partial);
      if (comparators === null) set.never = true;
      else set.comparators.push(...comparators);
      return true;
    };
    const trimmed = alternative.trim();
    const hyphen = dialect === 'npm' ? /^(\S+)\s+-\s+(\S+)$/.exec(trimmed) : null;
    if (hyphen) {
      if (!add('>=', hyphen[1]!) || !add('<=', hyphen[2]!)) return null;
    } else {
      const joined = trimmed.replace(/(<=|>=|<|>|=|\^|~>|~)\s+/g, '$1');
      const tokens = dialect === 'npm' ? joined.split(/\s+/) : joined.split(',').map((t) => t.trim());
      for (const token of tokens) {
        if (token === '') {
          if (dialect === 'cargo' || tokens.length > 1) return null;
          continue; // npm: an empty range is `*`
        }
        const [, op = '', rest = ''] = TOKEN.exec(token) ?? [];
        // Cargo: a bare version is a caret requirement, a bare wildcard (`1.2.*`) an x-range.
        const defaultOp = dialect === 'cargo' && op === '' ? (/[xX*]/.test(rest) ? '=' : '^') : op;
        if (dialect === 'cargo' && op === '~>') return null;
        if (!add(defaultOp, rest)) return null;
      }
    }
    sets.push(set);
  }
  return sets;
}

function test(c: Comparator, v: SemVer): boolean {
  const d = compareSemver(v, c.v);
  switch (c.op) {
    case '<':
      return d < 0;
    case '<=':
      return d <= 0;
    case '>':
      return d > 0;
    case '>=':
      return d >= 0;
    default:
      return d === 0;
  }
}

function satisfiesParsed(v: SemVer, range: Range): boolean {
  return range.some(
    (set) =>
      !set.never &&
      set.comparators.every((c) => test(c, v)) &&
      (v.pre.length === 0 || set.preTuples.has(`${v.major}.${v.minor}.${v.patch}`)),
  );
}

export function satisfies(version: string, range: Range): boolean {
  const v = parseSemver(version);
  return v !== null && satisfiesParsed(v, range);
}

/** The highest of `versions` in the range, or null. Versions that are not semver are ignored. */
export function maxSatisfying(versions: Iterable<string>, range: Range): string | null {
  let best: { text: string; v: SemVer } | null = null;
  for (const text of versions) {
    const v = parseSemver(text);
    if (v === null || !satisfiesParsed(v, range)) continue;
    if (best === null || compareSemver(v, best.v) > 0) best = { text, v };
  }
  return best?.text ?? null;
}
