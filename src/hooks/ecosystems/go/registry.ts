import type { RegistryClient, RegistryFacts } from '../../types.js';
import {
  badShape,
  fetchJson,
  fetchText,
  isRecord,
  joinUrl,
  notFound,
  parseDate,
  type RegistryClientOptions,
} from '../fetch.js';
import { compareSemver, parseSemver, type SemVer } from '../semver.js';
import { OWNER_HOSTS } from './names.js';

const REGISTRY = 'Go module proxy';

/** Go answers "no such module or version" with either. */
const GONE = [404, 410] as const;

/** How many module paths a package path is tried as (the path itself, then its parents). */
const MAX_MODULE_CANDIDATES = 4;

/**
 * A Go module proxy (GOPROXY protocol; configured by `SVC_GOPROXY_URL`). Paths and versions are
 * case-encoded (`!` + lowercase for each capital).
 *
 * - Existence: `{module}/@v/list` and `{module}/@latest`, in parallel; the module exists when either
 *   answers (a module with only pseudo-versions has an empty list but a `@latest`). When both are
 *   404/410 the parent path is tried, as `go get`/`go install` do for a package inside a module
 *   (`golang.org/x/tools/cmd/stringer`), down to two path elements (three on github.com and the like),
 *   at most four paths. None found: the module does not exist.
 * - resolvedVersion: no version, `latest`, `upgrade`, `patch`: `@latest`. A full version (`v1.2.3`,
 *   a pseudo-version): its `.info`. A prefix (`v1`, `v1.2`): the highest listed version with it
 *   (releases before prereleases). A comparison (`<v1.2.3`, `>=v1.5`): the closest listed version
 *   that satisfies it, as `go get` picks. Anything else (a branch, a commit): the proxy resolves
 *   `.info`. Null when nothing answers.
 * - versionPublished: that `.info`'s `Time`.
 * - firstPublished: the `Time` of the lowest listed version (one more request, in parallel with the
 *   version's); null when the list is empty (only pseudo-versions).
 *
 * The proxy's `Time` is the commit time of the version, which a publisher chooses: a new module may
 * carry old dates.
 */
export function createGoRegistry(options: RegistryClientOptions): RegistryClient {
  const get = (path: string, signal: AbortSignal) => ({
    registry: REGISTRY,
    url: joinUrl(options.baseUrl, path),
    headers: { accept: 'application/json' },
    signal,
    fetch: options.fetch,
    maxBytes: options.maxBytes,
    missing: GONE,
  });
  const info = async (module: string, path: string, signal: AbortSignal): Promise<GoInfo | null> => {
    const body = await fetchJson(get(`${escapeGoPath(module)}/${path}`, signal));
    if (body === null) return null;
    if (!isRecord(body) || typeof body.Version !== 'string') throw badShape(REGISTRY);
    return { version: body.Version, time: parseDate(body.Time) };
  };
  const fetchInfo = async (module: string, version: string | null, signal: AbortSignal) =>
    version === null ? null : info(module, `@v/${escapeGoVersion(version)}.info`, signal);

  const tryModule = async (
    module: string,
    query: string,
    signal: AbortSignal,
  ): Promise<RegistryFacts | null> => {
    const [listText, latest] = await Promise.all([
      fetchText(get(`${escapeGoPath(module)}/@v/list`, signal)),
      info(module, '@latest', signal),
    ]);
    const listed = parseList(listText ?? '');
    if (listed.length === 0 && latest === null) return null;

    // The version to ask `.info` about, when the query names or selects one; the lowest listed
    // version's `.info` (firstPublished) is fetched alongside, once when both are the same.
    let target: string | null = null;
    let resolving: Promise<GoInfo | null>;
    if (query === 'latest' || query === 'upgrade' || query === 'patch') {
      target = latest?.version ?? pick(listed, () => true, 'highest');
      resolving = latest !== null ? Promise.resolve(latest) : fetchInfo(module, target, signal);
    } else if (CANONICAL_GO_VERSION.test(query)) {
      target = query;
      resolving = fetchInfo(module, target, signal);
    } else {
      const chosen = chooseListed(query, listed);
      if (chosen === undefined) resolving = fetchInfo(module, query, signal);
      else {
        target = chosen;
        resolving = fetchInfo(module, target, signal);
      }
    }
    const lowest = listed[0]?.text ?? null;
    const [resolved, first] = await Promise.all([
      resolving,
      lowest === null ? null : lowest === target ? resolving : fetchInfo(module, lowest, signal),
    ]);
    return {
      exists: true,
      firstPublished: first?.time ?? null,
      resolvedVersion: resolved?.version ?? null,
      versionPublished: resolved?.time ?? null,
    };
  };

  return {
    ecosystem: 'Go',
    async lookup(name, version, signal): Promise<RegistryFacts> {
      const query = version?.trim() || 'latest';
      for (const module of moduleCandidates(name.trim())) {
        const facts = await tryModule(module, query, signal);
        if (facts !== null) return facts;
      }
      return notFound();
    },
  };
}

interface GoInfo {
  version: string;
  time: Date | null;
}

/** A full Go version: semver with the `v`, a pseudo-version, `+incompatible`. */
export const CANONICAL_GO_VERSION = /^v\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+incompatible)?$/;

/** GOPROXY case encoding: each capital letter becomes `!` and its lowercase. */
export function escapeGoPath(path: string): string {
  return path
    .split('/')
    .map((segment) => encodeSegment(segment.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`)))
    .join('/');
}

export function escapeGoVersion(version: string): string {
  return encodeSegment(version.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`));
}

/** Percent-encodes what a module path or version should not hold (`?`, `#`, spaces...), keeping `+`. */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/%2B/g, '+');
}

/** The path, then its parents, down to the shortest a module path can be on its host. */
export function moduleCandidates(path: string): string[] {
  const elements = path.split('/').filter((e) => e !== '');
  if (elements.length === 0) return [];
  const host = elements[0] ?? '';
  const min = OWNER_HOSTS.has(host) ? 3 : 2;
  const out: string[] = [];
  for (
    let n = elements.length;
    n >= Math.min(min, elements.length) && out.length < MAX_MODULE_CANDIDATES;
    n--
  ) {
    out.push(elements.slice(0, n).join('/'));
  }
  return out;
}

interface Listed {
  text: string;
  v: SemVer;
}

/** `@v/list`: one version a line, any order; anything that is not a full version is ignored. */
function parseList(text: string): Listed[] {
  const out: Listed[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    const v = CANONICAL_GO_VERSION.test(t) ? parseSemver(t) : null;
    if (v !== null) out.push({ text: t, v });
  }
  return out.sort((a, b) => compareSemver(a.v, b.v));
}

/** A release when one qualifies, else a prerelease; the highest or the lowest of them. */
function pick(
  listed: readonly Listed[],
  ok: (v: SemVer) => boolean,
  which: 'highest' | 'lowest',
): string | null {
  const matching = listed.filter((l) => ok(l.v));
  const releases = matching.filter((l) => l.v.prerelease.length === 0);
  const pool = releases.length > 0 ? releases : matching;
  const chosen = which === 'highest' ? pool[pool.length - 1] : pool[0];
  return chosen?.text ?? null;
}

/**
 * The listed version a prefix (`v1`, `v1.2`) or a comparison (`<v1.2.3`) query selects; null when none
 * does; undefined when the query is neither (the proxy is asked).
 */
function chooseListed(query: string, listed: readonly Listed[]): string | null | undefined {
  const prefix = /^v(\d+)(?:\.(\d+))?$/.exec(query);
  if (prefix) {
    const major = Number(prefix[1]);
    const minor = prefix[2] === undefined ? null : Number(prefix[2]);
    return pick(listed, (v) => v.major === major && (minor === null || v.minor === minor), 'highest');
  }
  const comparison = /^(<=|>=|<|>)(v\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.-]+)?)$/.exec(query);
  if (comparison) {
    const [, op, text] = comparison;
    const bound = parseSemver(completeVersion(text!));
    if (bound === null) return null;
    const cmp = (v: SemVer) => compareSemver(v, bound);
    if (op === '<') return pick(listed, (v) => cmp(v) < 0, 'highest');
    if (op === '<=') return pick(listed, (v) => cmp(v) <= 0, 'highest');
    if (op === '>') return pick(listed, (v) => cmp(v) > 0, 'lowest');
    return pick(listed, (v) => cmp(v) >= 0, 'lowest');
  }
  return undefined;
}

/** `v1` → `v1.0.0`, `v1.2` → `v1.2.0` (Go's semver fills the missing parts with zeros). */
function completeVersion(text: string): string {
  const [core = '', ...rest] = text.split('-');
  const parts = core.split('.');
  while (parts.length < 3) parts.push('0');
  return [parts.join('.'), ...rest].join('-');
}
