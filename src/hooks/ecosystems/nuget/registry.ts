import type { RegistryClient, RegistryFacts } from '../../types.js';
import { badShape, fetchJson, isRecord, joinUrl, notFound, type RegistryClientOptions } from '../fetch.js';

const REGISTRY = 'NuGet';

/**
 * NuGet's flat container (configured by `SVC_NUGET_URL`, the `PackageBaseAddress/3.0.0` resource):
 * one `GET {base}/{lowercase id}/index.json`.
 *
 * - 404 (or an empty version list): the package does not exist.
 * - firstPublished, versionPublished: always null. The flat container has no dates; they live in the
 *   registration resource, whose address only the feed's service index gives, and the configuration
 *   names the flat container alone (guessing the service index from nuget.org's URL layout would tie
 *   the client to one public host). So the product judges no NuGet package by age.
 * - resolvedVersion: an exact version that exists (compared normalized: `1.0` = `1.0.0`, case
 *   ignored); a floating version (`1.*`, `1.2.*`, `*`; with `-*` prereleases too): the highest match;
 *   an interval (`[1.0,2.0)`, `[1.0,)`, `[1.2]`): the lowest version in it, as NuGet resolves; no
 *   version: the highest stable version (else the highest).
 */
export function createNugetRegistry(options: RegistryClientOptions): RegistryClient {
  return {
    ecosystem: 'NuGet',
    async lookup(name, version, signal): Promise<RegistryFacts> {
      const body = await fetchJson({
        registry: REGISTRY,
        url: joinUrl(options.baseUrl, `${encodeURIComponent(name.trim().toLowerCase())}/index.json`),
        headers: { accept: 'application/json' },
        signal,
        fetch: options.fetch,
        maxBytes: options.maxBytes,
      });
      if (body === null) return notFound();
      if (!isRecord(body) || !Array.isArray(body.versions)) throw badShape(REGISTRY);
      const versions: NugetVersion[] = [];
      for (const text of body.versions) {
        if (typeof text !== 'string') throw badShape(REGISTRY);
        const v = parseNugetVersion(text);
        if (v !== null) versions.push(v);
      }
      if (versions.length === 0) return notFound();
      versions.sort(compareNuget);
      return {
        exists: true,
        firstPublished: null,
        resolvedVersion: resolveNugetVersion(version, versions),
        versionPublished: null,
      };
    },
  };
}

interface NugetVersion {
  text: string;
  /** Major, minor, patch, revision. */
  parts: [number, number, number, number];
  /** Prerelease labels, lowercase; empty for a release. */
  pre: string[];
}

export function parseNugetVersion(text: string): NugetVersion | null {
  const m =
    /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+.*)?$/.exec(
      text.trim(),
    );
  if (!m) return null;
  return {
    text: text.trim(),
    parts: [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0), Number(m[4] ?? 0)],
    pre: m[5] === undefined ? [] : m[5].toLowerCase().split('.'),
  };
}

/**
 * Pre-release precedence (SemVer 2.0, which NuGet follows; the labels are lowercased on parsing): a
 * release outranks any pre-release; then identifier by identifier, numbers numerically and below
 * words, words in ASCII order, and a shorter list below a longer one it begins.
 */
function comparePrerelease(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return b.length - a.length;
  const numeric = (v: string) => /^\d+$/.test(v);
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
    return x < y ? -1 : 1;
  }
  return 0;
}

export function compareNuget(a: NugetVersion, b: NugetVersion): number {
  for (let i = 0; i < 4; i++) {
    const d = a.parts[i]! - b.parts[i]!;
    if (d !== 0) return d;
  }
  return comparePrerelease(a.pre, b.pre);
}

/** The version a `--version` value selects among `versions` (sorted ascending), or null. */
export function resolveNugetVersion(
  requested: string | null,
  versions: readonly NugetVersion[],
): string | null {
  const text = requested?.trim() ?? '';
  const stable = versions.filter((v) => v.pre.length === 0);
  if (text === '') return (stable.at(-1) ?? versions.at(-1))?.text ?? null;

  const exact = parseNugetVersion(text);
  if (exact !== null) return versions.find((v) => compareNuget(v, exact) === 0)?.text ?? null;

  const floating = /^((?:\d+\.){0,3})\*(-\*)?$/.exec(text);
  if (floating) {
    const fixed = floating[1]!
      .split('.')
      .filter((p) => p !== '')
      .map(Number);
    const pool = floating[2] ? versions : stable;
    const matching = pool.filter((v) => fixed.every((n, i) => v.parts[i] === n));
    return matching.at(-1)?.text ?? null;
  }

  const interval = /^([[(])\s*([^,\s]*)\s*(?:,\s*([^\])\s]*)\s*)?([\])])$/.exec(text);
  if (interval) {
    const [, open, lowText = '', highText, close] = interval;
    if (highText === undefined) {
      // `[1.2]`: exactly that version.
      const only = parseNugetVersion(lowText);
      return open === '[' && close === ']' && only !== null
        ? (versions.find((v) => compareNuget(v, only) === 0)?.text ?? null)
        : null;
    }
    const low = lowText === '' ? null : parseNugetVersion(lowText);
    const high = highText === '' ? null : parseNugetVersion(highText);
    if ((lowText !== '' && low === null) || (highText !== '' && high === null)) return null;
    const within = (v: NugetVersion) =>
      (low === null || (open === '[' ? compareNuget(v, low) >= 0 : compareNuget(v, low) > 0)) &&
      (high === null || (close === ']' ? compareNuget(v, high) <= 0 : compareNuget(v, high) < 0));
    // Prereleases only when a bound names one (NuGet's rule).
    const allowPre = (low?.pre.length ?? 0) > 0 || (high?.pre.length ?? 0) > 0;
    return versions.find((v) => within(v) && (allowPre || v.pre.length === 0))?.text ?? null;
  }
  return null;
}
