import type { RegistryClient, RegistryFacts } from '../../types.js';
import {
  badShape,
  fetchJson,
  isRecord,
  joinUrl,
  notFound,
  parseDate,
  type RegistryClientOptions,
} from '../fetch.js';
import { maxSatisfying, parseRange, parseSemver, sameVersion, satisfies } from '../semver.js';

const REGISTRY = 'npm registry';

/**
 * The npm registry (configured by `SVC_NPM_REGISTRY_URL`). One `GET {base}/{name}` for the full packument
 * (`Accept: application/json`: the abbreviated install document has no `time`).
 *
 * - 404: the package does not exist. So does a packument without versions (an unpublished package:
 *   nothing of it can be installed).
 * - firstPublished: `time.created`, else the earliest `time[version]`.
 * - resolvedVersion: an exact version that exists; a dist-tag (`latest`, `next`); a range (`^1.2`,
 *   `~1.2.3`, `1.x`, `>=1 <2`, `1 - 2`, `a || b`) resolved as npm does: `latest` when it satisfies the
 *   range, else the highest satisfying version; no version: `dist-tags.latest`. Null when nothing
 *   matches (npm would fail too).
 * - versionPublished: `time[resolvedVersion]`.
 */
export function createNpmRegistry(options: RegistryClientOptions): RegistryClient {
  return {
    ecosystem: 'npm',
    async lookup(name, version, signal): Promise<RegistryFacts> {
      const body = await fetchJson({
        registry: REGISTRY,
        url: joinUrl(options.baseUrl, encodeNpmName(name.trim())),
        headers: { accept: 'application/json' },
        signal,
        fetch: options.fetch,
        maxBytes: options.maxBytes,
      });
      if (body === null) return notFound();
      if (!isRecord(body)) throw badShape(REGISTRY);
      const time = isRecord(body.time) ? body.time : {};
      if (!isRecord(body.versions)) {
        if (body.versions === undefined && isRecord(time.unpublished)) return notFound();
        throw badShape(REGISTRY);
      }
      const versions = Object.keys(body.versions);
      if (versions.length === 0) return notFound();
      const distTags = new Map<string, string>();
      if (isRecord(body['dist-tags'])) {
        for (const [tag, v] of Object.entries(body['dist-tags'])) {
          if (typeof v === 'string') distTags.set(tag, v);
        }
      }
      let firstPublished = parseDate(time.created);
      if (firstPublished === null) {
        for (const v of versions) {
          const d = parseDate(time[v]);
          if (d !== null && (firstPublished === null || d < firstPublished)) firstPublished = d;
        }
      }
      const resolvedVersion = resolveNpmVersion(version, versions, distTags);
      return {
        exists: true,
        firstPublished,
        resolvedVersion,
        versionPublished: resolvedVersion === null ? null : parseDate(time[resolvedVersion]),
      };
    },
  };
}

/** `@scope/name` → `@scope%2Fname`; anything else percent-encoded as one path segment. */
export function encodeNpmName(name: string): string {
  const scoped = /^@([^/]+)\/(.+)$/.exec(name);
  if (scoped) return `@${encodeURIComponent(scoped[1]!)}%2F${encodeURIComponent(scoped[2]!)}`;
  return encodeURIComponent(name);
}

/** The version npm would pick for the request among the published ones, or null. */
export function resolveNpmVersion(
  requested: string | null,
  versions: readonly string[],
  distTags: ReadonlyMap<string, string>,
): string | null {
  const known = new Set(versions);
  const tagLatest = distTags.get('latest');
  const latest = tagLatest !== undefined && known.has(tagLatest) ? tagLatest : null;
  const text = requested?.trim() ?? '';
  if (text === '' || text === 'latest') return latest ?? maxSatisfying(versions, parseRange('*', 'npm')!);
  if (known.has(text)) return text;
  const tagged = distTags.get(text);
  if (tagged !== undefined) return known.has(tagged) ? tagged : null;
  const exact = parseSemver(text.replace(/^[=v]+/, ''));
  if (exact) return versions.find((v) => sameVersion(v, exact)) ?? null;
  const range = parseRange(text, 'npm');
  if (range === null) return null;
  if (latest !== null && satisfies(latest, range)) return latest;
  return maxSatisfying(versions, range);
}
