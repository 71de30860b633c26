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
import { maxSatisfying, parseRange, parseSemver } from '../semver.js';

const REGISTRY = 'crates.io';

/** crates.io refuses requests without a User-Agent that says who is asking (its crawler policy). */
export const CRATES_USER_AGENT = 'svc-hooks (https://github.com/svc-security/svc)';

/**
 * crates.io (configured by `SVC_CRATES_URL`): one `GET {base}/api/v1/crates/{name}`.
 *
 * - 404: the crate does not exist.
 * - firstPublished: `crate.created_at`.
 * - resolvedVersion: a full version that exists (`1.2.3`, `=1.2.3`: what `cargo install foo@1.2.3`
 *   installs); else a requirement in Cargo's syntax (`1.0` is `^1.0`, `~1.2`, `>=1, <2`, `1.*`), the
 *   highest version that is not yanked and satisfies it; no version: `crate.max_stable_version`, else
 *   `newest_version`/`max_version`.
 * - versionPublished: that version's `created_at` in `versions` (null when the list does not hold it).
 */
export function createCratesRegistry(options: RegistryClientOptions): RegistryClient {
  return {
    ecosystem: 'crates.io',
    async lookup(name, version, signal): Promise<RegistryFacts> {
      const body = await fetchJson({
        registry: REGISTRY,
        url: joinUrl(options.baseUrl, `api/v1/crates/${encodeURIComponent(name.trim())}`),
        headers: { accept: 'application/json', 'user-agent': CRATES_USER_AGENT },
        signal,
        fetch: options.fetch,
        maxBytes: options.maxBytes,
      });
      if (body === null) return notFound();
      if (!isRecord(body) || !isRecord(body.crate)) throw badShape(REGISTRY);
      if (body.versions !== undefined && body.versions !== null && !Array.isArray(body.versions)) {
        throw badShape(REGISTRY);
      }
      const versions = new Map<string, { created: Date | null; yanked: boolean }>();
      for (const v of Array.isArray(body.versions) ? body.versions : []) {
        if (!isRecord(v) || typeof v.num !== 'string') throw badShape(REGISTRY);
        versions.set(v.num, { created: parseDate(v.created_at), yanked: v.yanked === true });
      }
      const crate = body.crate;
      const resolvedVersion = resolveCrateVersion(version, versions, () => {
        for (const key of ['max_stable_version', 'newest_version', 'max_version']) {
          const v = crate[key];
          if (typeof v === 'string' && v !== '' && v !== '0.0.0') return v;
        }
        return null;
      });
      return {
        exists: true,
        firstPublished: parseDate(crate.created_at),
        resolvedVersion,
        versionPublished: resolvedVersion === null ? null : (versions.get(resolvedVersion)?.created ?? null),
      };
    },
  };
}

function resolveCrateVersion(
  requested: string | null,
  versions: ReadonlyMap<string, { yanked: boolean }>,
  newest: () => string | null,
): string | null {
  const text = requested?.trim() ?? '';
  const available = [...versions].filter(([, v]) => !v.yanked).map(([num]) => num);
  if (text === '' || text === 'latest')
    return newest() ?? maxSatisfying(available, parseRange('*', 'cargo')!);
  const exact = text.replace(/^=\s*/, '');
  if (parseSemver(exact) !== null && !exact.startsWith('v') && versions.has(exact)) return exact;
  const range = parseRange(text, 'cargo');
  return range === null ? null : maxSatisfying(available, range);
}
