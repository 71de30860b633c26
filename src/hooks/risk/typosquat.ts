/**
 * Typosquat detection: a package is a likely typosquat when it is not itself popular
 * and its name is one typing mistake away from a popular package's (Damerau-Levenshtein distance
 * one: a character inserted, removed or replaced, or two adjacent ones swapped), differs from it
 * only in separators (`crossenv` / `cross-env`) or npm letter case, or is one of the look-alikes its
 * ecosystem adds (`names.confusions` in its descriptor: an npm scope dropped or faked, a Go module on
 * another host). The popular names are each ecosystem's `popular.json`: npm and PyPI generated from
 * download counts by scripts/build-popularity-lists.ts, crates.io, Go and NuGet curated by hand.
 *
 * Each list is indexed once, on first use (npm: ~0.1 s, ~12 MB). A lookup makes at most
 * 2·len(name) + 1 reads of a deletion index (SymSpell: two names are at distance one only when one
 * is the other with a character removed, or both lose one character to the same form) keyed by
 * 30-bit hashes computed in O(len) without building strings, plus a few map reads for the other
 * kinds; every hit is then checked exactly. Measured on this machine: ~0.15 µs for a popular name,
 * ~1 µs for a squat, ~8 µs for an unknown name (npm names averaging 19 characters).
 *
 * Guards against false positives (measured on every npm package and every PyPI project, see
 * docs/popularity-lists.md):
 * - a popular name is never a squat, compared in the registry's own normal form (`names.normalize`:
 *   PEP 503 for PyPI, case-insensitive for NuGet, Go and crates.io, `-` = `_` for crates.io), or as
 *   spelled where names are case-sensitive (npm);
 * - names shorter than MIN_EDIT_LENGTH are not judged by edit distance, and names up to
 *   SHORT_NAME_LENGTH only against the SHORT_TARGET_RANKS most popular (short names collide often);
 * - a digit replaced by a digit, or added at the end, is a version or a fork (`vue2`/`vue3`,
 *   `yaml.v2`/`yaml.v3`, `pngjs3`), not a typo;
 * - a name with the same publisher as its look-alike (`names.publisher`: the npm scope, the Go host or
 *   owner) is not a squat: a typo there is a package that does not exist, which the registry check
 *   reports;
 * - among several look-alikes the most popular wins.
 */
import type { ConfusionKind, NameConfusion, NameRules } from '../ecosystems/ecosystem-descriptor.js';
import { ecosystemById } from '../ecosystems/index.js';
import { withoutSeparators } from '../ecosystems/without-separators.js';
import type { Ecosystem } from '../types.js';

export type TyposquatKind =
  /** One character inserted, removed or replaced (`expres` / `express`). */
  | 'edit'
  /** Two adjacent characters swapped (`lodahs` / `lodash`). */
  | 'swap'
  /** Only the separators differ (`crossenv` / `cross-env`). */
  | 'separator'
  /** Only letter case differs from a popular npm name that has capitals (`jsonstream` / `JSONStream`). */
  | 'case'
  /** A look-alike its ecosystem's naming allows (an npm scope, a Go host). */
  | ConfusionKind;

export interface Typosquat {
  /** The popular name it looks like, as the list spells it. */
  target: string;
  kind: TyposquatKind;
}

/** Names shorter than this (in their normal form) are not judged by edit distance. */
export const MIN_EDIT_LENGTH = 5;
/** Names up to this length are compared by edit distance only with the SHORT_TARGET_RANKS most popular. */
export const SHORT_NAME_LENGTH = 6;
export const SHORT_TARGET_RANKS = 2000;

/** Whether a popular name (normal form, rank) is a target for edit-distance look-alikes. */
function editTarget(key: string, rank: number): boolean {
  return key.length > SHORT_NAME_LENGTH || (key.length >= MIN_EDIT_LENGTH && rank < SHORT_TARGET_RANKS);
}

/** The form under which an ecosystem's registry treats two names as the same package. */
export function normalizeName(ecosystem: Ecosystem, name: string): string {
  return ecosystemById(ecosystem).names.normalize(name);
}

/**
 * Whether a and b are at Damerau-Levenshtein (optimal string alignment) distance exactly one, and
 * how: 'swap' for two adjacent characters exchanged, 'edit' for one inserted, removed or replaced,
 * 'digit' for a digit replaced by a digit or added at the end (a version, not a typo), null otherwise.
 */
export function distanceOne(a: string, b: string): 'edit' | 'swap' | 'digit' | null {
  if (a === b) return null;
  const la = a.length;
  const lb = b.length;
  if (la === lb) {
    let i = 0;
    while (a[i] === b[i]) i++;
    if (a.slice(i + 1) === b.slice(i + 1)) {
      return isDigit(a[i]) && isDigit(b[i]) ? 'digit' : 'edit';
    }
    if (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2)) return 'swap';
    return null;
  }
  if (Math.abs(la - lb) !== 1) return null;
  const [long, short] = la > lb ? [a, b] : [b, a];
  let i = 0;
  while (i < short.length && long[i] === short[i]) i++;
  if (long.slice(i + 1) !== short.slice(i)) return null;
  // A digit added at the end is a fork's or a major version's name (`pngjs3`, `react-codemirror2`).
  return i === short.length && isDigit(long[i]) ? 'digit' : 'edit';
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** The popular names of one ecosystem, indexed for lookups. */
export class PopularIndex {
  /** The names as the list spells them, most popular first. */
  private readonly names: string[];
  /** Their normal forms. */
  private readonly keys: string[];
  /** normal form → rank (the first of equal forms). */
  private readonly rank = new Map<string, number>();
  /** Case-sensitive ecosystems: the names as spelled (npm: `jsonstream` is not `JSONStream`). */
  private readonly exact = new Set<string>();
  /** form without separators → best rank. */
  private readonly bySeparator = new Map<string, number>();
  /**
   * Deletion index: the hash of every edit target's normal form, and of each of its forms with one
   * character removed → the ranks they come from. Hashes, not strings: a lookup builds no string, and
   * a collision only adds a candidate that the exact check then drops.
   */
  private readonly byDeletion = new Map<number, number | number[]>();
  /** The hash of every edit target's normal form → its ranks (a key with one character added). */
  private readonly byHash = new Map<number, number | number[]>();
  /** The ecosystem's own look-alikes, each with its index: lookup key → best rank. */
  private readonly confusions: { confusion: NameConfusion; index: Map<string, number> }[];
  private readonly rules: NameRules;

  constructor(
    readonly ecosystem: Ecosystem,
    names: readonly string[],
  ) {
    this.rules = ecosystemById(ecosystem).names;
    this.confusions = (this.rules.confusions ?? []).map((confusion) => ({ confusion, index: new Map() }));
    this.names = [...names];
    this.keys = this.names.map((n) => this.rules.normalize(n));
    this.keys.forEach((key, r) => {
      if (this.rules.caseSensitive) this.exact.add(this.names[r] as string);
      if (this.rank.has(key)) return;
      this.rank.set(key, r);
      const bare = withoutSeparators(key);
      setBest(this.bySeparator, bare, r);
      if (editTarget(key, r)) {
        const h = deletionHashes(key);
        addRank(this.byHash, h.full, r);
        addRank(this.byDeletion, h.full, r);
        for (const d of h.deletions) addRank(this.byDeletion, d, r);
      }
      for (const { confusion, index } of this.confusions) {
        const at = confusion.indexKey(key, bare);
        if (at !== null) setBest(index, at, r);
      }
    });
  }

  /** How many distinct names the list holds. */
  get size(): number {
    return this.rank.size;
  }

  /**
   * Whether the name is on the list (after normalization, or as spelled where case matters), or is
   * judged as a form that is (Go: a package inside a listed module).
   */
  isPopular(name: string): boolean {
    if (this.rules.caseSensitive) return this.exact.has(name.trim());
    const key = this.rules.normalize(name);
    if (this.rank.has(key)) return true;
    return this.rules.judgedForms?.(key).some((form) => this.rank.has(form)) ?? false;
  }

  /** The look-alike of the name on the list, or null when there is none or the name is popular. */
  findTyposquat(name: string): Typosquat | null {
    if (this.isPopular(name)) return null;
    const key = this.rules.normalize(name);
    if (key === '') return null;
    if (this.rules.judgedForms === undefined) return this.match(key);
    for (const form of this.rules.judgedForms(key)) {
      const found = this.match(form);
      if (found) return found;
    }
    return null;
  }

  /** The most popular look-alike of a (not popular) normal form. */
  private match(key: string): Typosquat | null {
    const best: Best = { rank: Number.POSITIVE_INFINITY, kind: 'edit' };

    // Same normal form, yet not popular: an npm name in other letter case (`jsonstream`).
    offer(best, this.rank.get(key), 'case');

    const sep = withoutSeparators(key);
    const bySep = this.bySeparator.get(sep);
    if (bySep !== undefined && this.keys[bySep] !== key) offer(best, bySep, 'separator');

    this.editMatches(key, best);

    for (const { confusion, index } of this.confusions) {
      const probe = confusion.probeKey(key, sep);
      if (probe !== null) offer(best, index.get(probe), confusion.kind);
    }

    if (best.rank === Number.POSITIVE_INFINITY) return null;
    return { target: this.names[best.rank] as string, kind: best.kind };
  }

  /**
   * Offers every edit target at distance one from the key, but a digit for a digit and the same
   * publisher's names. Probes: the key itself and its deletions in the deletion index, and its
   * deletions among the names (at most 2·len + 1 map reads), each hit checked exactly.
   */
  private editMatches(key: string, best: Best): void {
    if (key.length < MIN_EDIT_LENGTH) return;
    const own = this.rules.publisher?.(key) ?? null;
    const h = deletionHashes(key);
    // The key is an edit target with one character removed (`expres`).
    this.probe(this.byDeletion, h.full, key, own, best);
    for (const d of h.deletions) {
      // An edit target with one character added (`expresss`).
      this.probe(this.byHash, d, key, own, best);
      // One character replaced or two swapped: both lose one character to the same form.
      this.probe(this.byDeletion, d, key, own, best);
    }
  }

  private probe(
    index: Map<number, number | number[]>,
    hash: number,
    key: string,
    own: string | null,
    best: Best,
  ): void {
    const hits = index.get(hash);
    if (hits === undefined) return;
    if (typeof hits === 'number') this.check(key, hits, own, best);
    else for (const r of hits) this.check(key, r, own, best);
  }

  private check(key: string, r: number, own: string | null, best: Best): void {
    if (r >= best.rank) return;
    const target = this.keys[r] as string;
    const how = distanceOne(key, target);
    if (how !== 'edit' && how !== 'swap') return;
    if (own !== null && own === this.rules.publisher?.(target)) return;
    offer(best, r, how);
  }
}

interface Best {
  rank: number;
  kind: TyposquatKind;
}

function offer(best: Best, rank: number | undefined, kind: TyposquatKind): void {
  if (rank !== undefined && rank < best.rank) {
    best.rank = rank;
    best.kind = kind;
  }
}

const HASH_BASE = 0x01000193;
/** Hashes are cut to 30 bits: small integers, which V8 keeps unboxed in a Map. */
const SMALL = 0x3fffffff;
const POWERS: number[] = [1];

/** B^k mod 2^32, as an int32. */
function power(k: number): number {
  while (POWERS.length <= k) POWERS.push(Math.imul(POWERS[POWERS.length - 1] as number, HASH_BASE));
  return POWERS[k] as number;
}

/**
 * The polynomial hash (mod 2^32, cut to 30 bits) of a string and of each of its forms with one character removed,
 * from prefix and suffix hashes: O(len), no string built.
 */
function deletionHashes(s: string): { full: number; deletions: number[] } {
  const n = s.length;
  const prefix = new Array<number>(n + 1);
  prefix[0] = 0;
  for (let i = 0; i < n; i++)
    prefix[i + 1] = (Math.imul(prefix[i] as number, HASH_BASE) + s.charCodeAt(i)) | 0;
  const whole = prefix[n] as number;
  const deletions = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    // hash(s[i+1..n)) = full - prefix[i+1]·B^(n-i-1); the deletion is prefix[i]·B^(n-i-1) + that.
    const p = power(n - i - 1);
    const suffix = (whole - Math.imul(prefix[i + 1] as number, p)) | 0;
    deletions[i] = (Math.imul(prefix[i] as number, p) + suffix) & SMALL;
  }
  return { full: whole & SMALL, deletions };
}

function addRank(map: Map<number, number | number[]>, hash: number, rank: number): void {
  const had = map.get(hash);
  if (had === undefined) map.set(hash, rank);
  else if (typeof had === 'number') {
    if (had !== rank) map.set(hash, [had, rank]);
  } else if (had[had.length - 1] !== rank) had.push(rank);
}

function setBest(map: Map<string, number>, key: string, rank: number): void {
  const had = map.get(key);
  if (had === undefined || rank < had) map.set(key, rank);
}

const indexes = new Map<Ecosystem, PopularIndex>();

/** The shipped list's index for an ecosystem, built on first use. */
export function popularIndex(ecosystem: Ecosystem): PopularIndex {
  let index = indexes.get(ecosystem);
  if (!index) {
    index = new PopularIndex(ecosystem, ecosystemById(ecosystem).names.popular.names);
    indexes.set(ecosystem, index);
  }
  return index;
}

/** Whether the package is on the shipped popularity list of its ecosystem. */
export function isPopular(ecosystem: Ecosystem, name: string): boolean {
  return popularIndex(ecosystem).isPopular(name);
}

/** The popular package this name likely squats, or null (always null for a popular name). */
export function findTyposquat(ecosystem: Ecosystem, name: string): Typosquat | null {
  return popularIndex(ecosystem).findTyposquat(name);
}

/** The reason shown to the user: "`lodahs` looks like `lodash`; did you mean it?" */
export function describeTyposquat(name: string, result: Typosquat): string {
  const { target, kind } = result;
  const looks = `\`${name}\` looks like \`${target}\``;
  switch (kind) {
    case 'scope':
      if (target.startsWith('@') && !name.startsWith('@'))
        return `${looks} without its scope; did you mean \`${target}\`?`;
      if (name.startsWith('@') && !target.startsWith('@'))
        return `${looks} under a scope that is not its publisher's; did you mean \`${target}\`?`;
      return `${looks} under another scope; did you mean \`${target}\`?`;
    case 'host':
      return `${looks} on another host; did you mean \`${target}\`?`;
    case 'separator':
      return `${looks} with other separators; did you mean it?`;
    case 'case':
      return `${looks} in other letter case; did you mean it?`;
    case 'edit':
    case 'swap':
      return `${looks}; did you mean it?`;
  }
}
