import * as pep440 from '@renovatebot/pep440';
import type { RegistryClient, RegistryFacts } from '../../types.js';
import {
  badShape,
  earliest,
  fetchJson,
  isRecord,
  joinUrl,
  notFound,
  parseDate,
  type RegistryClientOptions,
} from '../fetch.js';

const REGISTRY = 'PyPI';

/**
 * PyPI's JSON API (configured by `SVC_PYPI_URL`): one `GET {base}/pypi/{normalized name}/json`.
 *
 * - 404: the project does not exist. So does a project none of whose releases has a file (nothing to
 *   install).
 * - firstPublished: the earliest `upload_time_iso_8601` of any file of any release.
 * - resolvedVersion: the release pip would install. An exact specifier (`==1.0`, `===1.0`, or a bare
 *   `1.0`) names it (`==1.0` also finds `1.0.0`, yanked or not); any other specifier (`>=1,<2`,
 *   `~=1.4`, `==1.*`, `!=1.5`) picks the highest release it admits among those not yanked (PEP 592),
 *   prereleases only when the specifier names one or nothing else matches (PEP 440, through
 *   `@renovatebot/pep440`); no specifier: the latest, `info.version`. Null when nothing matches (pip
 *   would fail too).
 * - versionPublished: the earliest upload time among that release's files.
 */
export function createPypiRegistry(options: RegistryClientOptions): RegistryClient {
  return {
    ecosystem: 'PyPI',
    async lookup(name, version, signal): Promise<RegistryFacts> {
      const body = await fetchJson({
        registry: REGISTRY,
        url: joinUrl(options.baseUrl, `pypi/${encodeURIComponent(normalizePypiName(name))}/json`),
        headers: { accept: 'application/json' },
        signal,
        fetch: options.fetch,
        maxBytes: options.maxBytes,
      });
      if (body === null) return notFound();
      if (!isRecord(body) || !isRecord(body.info) || !isRecord(body.releases)) throw badShape(REGISTRY);
      const uploaded = new Map<string, Date | null>();
      /** Releases with at least one file that is not yanked: what a range may pick. */
      const installable: string[] = [];
      let firstPublished: Date | null = null;
      let anyFile = false;
      for (const [release, files] of Object.entries(body.releases)) {
        if (!Array.isArray(files)) throw badShape(REGISTRY);
        let first: Date | null = null;
        let yanked = files.length > 0;
        for (const file of files) {
          if (!isRecord(file)) throw badShape(REGISTRY);
          anyFile = true;
          first = earliest(first, uploadTime(file));
          if (file.yanked !== true) yanked = false;
        }
        uploaded.set(release, first);
        if (files.length > 0 && !yanked) installable.push(release);
        firstPublished = earliest(firstPublished, first);
      }
      if (!anyFile) return notFound();
      const latest = typeof body.info.version === 'string' ? body.info.version : null;
      const resolvedVersion = resolvePypiVersion(version, [...uploaded.keys()], installable, latest);
      return {
        exists: true,
        firstPublished,
        resolvedVersion,
        versionPublished: resolvedVersion === null ? null : (uploaded.get(resolvedVersion) ?? null),
      };
    },
  };
}

/** PEP 503: lowercase, each run of `-`, `_` and `.` one `-`. */
export function normalizePypiName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[-_.]+/g, '-');
}

/**
 * The version an exact specifier pins (`==1.0`, `===1.0`, a bare `1.0`), or null for anything else:
 * no specifier, a range, a wildcard (`==1.*`), several clauses.
 */
export function exactPypiVersion(spec: string | null): string | null {
  const m = /^(?:===?)?\s*([0-9vV][0-9A-Za-z.!+_-]*)$/.exec(spec?.trim() ?? '');
  return m ? m[1]! : null;
}

function uploadTime(file: Record<string, unknown>): Date | null {
  const iso = parseDate(file.upload_time_iso_8601);
  if (iso !== null) return iso;
  // `upload_time` is UTC without a zone designator.
  return typeof file.upload_time === 'string' ? parseDate(`${file.upload_time.replace(/Z$/, '')}Z`) : null;
}

/**
 * The release pip would install for `spec` (see createPypiRegistry): `releases` are all of them,
 * `installable` those with a file that is not yanked, `latest` PyPI's `info.version`.
 */
export function resolvePypiVersion(
  spec: string | null,
  releases: readonly string[],
  installable: readonly string[],
  latest: string | null,
): string | null {
  const text = spec?.trim() ?? '';
  if (text === '') return latest;
  const pinned = exactPypiVersion(text);
  if (pinned !== null) {
    return releases.includes(pinned) ? pinned : (releases.find((r) => samePep440(r, pinned)) ?? null);
  }
  try {
    if (!pep440.validRange(text)) return latest;
    return pep440.maxSatisfying([...installable], text);
  } catch {
    // A release or specifier the library cannot read: judge the latest, as with no specifier.
    return latest;
  }
}

/** Whether two version texts are the same PEP 440 version (`1.0` = `1.0.0` = `v1.0`). */
function samePep440(a: string, b: string): boolean {
  try {
    return pep440.eq(a, b);
  } catch {
    return false;
  }
}
