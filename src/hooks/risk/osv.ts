import { badShape, fetchJson, isRecord, joinUrl } from '../ecosystems/fetch.js';
import { ecosystemById } from '../ecosystems/index.js';
import type { Ecosystem, MalwareLookup } from '../types.js';

const REGISTRY = 'OSV';

/** Pages of one query read at most; a package with more advisories than that is judged on these. */
export const OSV_MAX_PAGES = 5;

export interface OsvLookupOptions {
  /** `SVC_OSV_URL`, `https://api.osv.dev` by default. */
  baseUrl: string;
  fetch?: typeof fetch | undefined;
  maxBytes?: number | undefined;
  maxPages?: number | undefined;
}

/**
 * Known malicious packages from OSV: `POST {base}/v1/query` with the package and, only
 * when the request pins one exact version, that version; then every advisory id (or alias) starting
 * `MAL-`, following `next_page_token` for at most `maxPages` pages.
 *
 * Without a version OSV answers the advisories of every version: a package with one compromised
 * release long ago is then reported as malicious. Callers that know the resolved version should pass
 * it rather than the user's range.
 */
export function createOsvLookup(options: OsvLookupOptions): MalwareLookup {
  const maxPages = options.maxPages ?? OSV_MAX_PAGES;
  return {
    async maliciousAdvisories(ecosystem, name, version, signal): Promise<string[]> {
      const osv = ecosystemById(ecosystem).osv;
      const query: Record<string, unknown> = {
        package: { name: osv.packageName(name), ecosystem: osv.ecosystem },
      };
      const exact = exactOsvVersion(ecosystem, version);
      if (exact !== null) query.version = exact;
      const ids = new Set<string>();
      let pageToken: string | undefined;
      for (let page = 0; page < maxPages; page++) {
        const body = await fetchJson({
          registry: REGISTRY,
          url: joinUrl(options.baseUrl, 'v1/query'),
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/json' },
          body: JSON.stringify(pageToken === undefined ? query : { ...query, page_token: pageToken }),
          signal,
          fetch: options.fetch,
          maxBytes: options.maxBytes,
          missing: [],
        });
        if (!isRecord(body)) throw badShape(REGISTRY);
        const vulns = body.vulns ?? [];
        if (!Array.isArray(vulns)) throw badShape(REGISTRY);
        for (const vuln of vulns) {
          if (!isRecord(vuln) || typeof vuln.id !== 'string') throw badShape(REGISTRY);
          const aliases = Array.isArray(vuln.aliases) ? vuln.aliases : [];
          for (const id of [vuln.id, ...aliases]) {
            if (typeof id === 'string' && id.startsWith('MAL-')) ids.add(id);
          }
        }
        const next = body.next_page_token;
        if (typeof next !== 'string' || next === '') break;
        pageToken = next;
      }
      return [...ids];
    },
  };
}

/**
 * The version to send OSV: the request's version when it pins exactly one, in the form OSV's data
 * uses; null for none, a range, a tag or a wildcard (then OSV answers for every version). Each
 * ecosystem says what an exact version is (`osv.exactVersion` in its descriptor).
 */
export function exactOsvVersion(ecosystem: Ecosystem, version: string | null): string | null {
  const text = version?.trim() ?? '';
  return text === '' ? null : ecosystemById(ecosystem).osv.exactVersion(text);
}
