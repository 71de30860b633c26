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
 * - resolvedVersion: the release an exact specifier names (`==1.0`, `===1.0`, or a bare `1.0`;
 *   `==1.0` also finds `1.0.0`); any other specifier (`>=1,<2`, `~=1.4`, `==1.*`) or none: the latest,
 *   `info.version`. Null when an exact version is not a release.
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
      let firstPublished: Date | null = null;
      let anyFile = false;
      for (const [release, files] of Object.entries(body.releases)) {
        if (!Array.isArray(files)) throw badShape(REGISTRY);
        let first: Date | null = null;
        for (const file of files) {
          if (!isRecord(file)) throw badShape(REGISTRY);
          anyFile = true;
          first = earliest(first, uploadTime(file));
        }
        uploaded.set(release, first);
        firstPublished = earliest(firstPublished, first);
      }
      if (!anyFile) return notFound();
      const pinned = exactPypiVersion(version);
      let resolvedVersion: string | null;
      if (pinned !== null) {
        resolvedVersion = findRelease(pinned, uploaded.keys());
      } else {
        resolvedVersion = typeof body.info.version === 'string' ? body.info.version : null;
      }
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

/** The release a pinned version names: the same text, else the same PEP 440 version (`1.0` = `1.0.0`). */
function findRelease(pinned: string, releases: Iterable<string>): string | null {
  const all = [...releases];
  if (all.includes(pinned)) return pinned;
  const want = canonicalPep440(pinned);
  return all.find((r) => canonicalPep440(r) === want) ?? null;
}

/** A loose PEP 440 canonical form: lowercase, no `v`, no trailing `.0` in the release segment. */
function canonicalPep440(version: string): string {
  const v = version.trim().toLowerCase().replace(/^v/, '');
  const m = /^((?:\d+!)?\d+(?:\.\d+)*)(.*)$/.exec(v);
  if (!m) return v;
  const release = m[1]!.replace(/(?:\.0+)+$/, '').replace(/(^|\.|!)0+(\d)/g, '$1$2');
  return release + m[2]!;
}
