/**
 * How Go module paths are compared: a path names a package inside a module, so it is judged as each
 * enclosing module path; a module's owner on a code host (or its host elsewhere) is its publisher; the
 * same owner/repo on another host is a look-alike (`gitlab.com/stretchr/testify`).
 */
import type { NameConfusion } from '../ecosystem-descriptor.js';

/** Code hosts whose second path element is an owner (an account nobody else can publish under). */
export const OWNER_HOSTS: ReadonlySet<string> = new Set(['github.com', 'gitlab.com', 'bitbucket.org']);

/**
 * Paths are compared without case (code hosts ignore it), and a major version suffix (`/v5`) is the
 * same module's later line.
 */
export function normalizeGoPath(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\/v[0-9]+$/, '');
}

/** The path and each parent, down to two elements (a path of one element is judged under none). */
export function enclosingModules(key: string): string[] {
  const parts = key.split('/');
  const out: string[] = [];
  for (let n = parts.length; n >= 2; n--) out.push(n === parts.length ? key : parts.slice(0, n).join('/'));
  return out;
}

/** The publisher's namespace (host, plus owner on a code host); gopkg.in has none. */
export function goNamespace(key: string): string | null {
  const parts = key.split('/');
  const host = parts[0] ?? '';
  if (host === 'gopkg.in') return null;
  if (OWNER_HOSTS.has(host)) return parts.length >= 3 ? `${host}/${parts[1]}` : null;
  return host;
}

export const goConfusions: readonly NameConfusion[] = [
  {
    // The path without its host, when at least owner/repo remain.
    kind: 'host',
    indexKey(popular) {
      const rest = popular.split('/').slice(1);
      return rest.length >= 2 ? rest.join('/') : null;
    },
    probeKey(key) {
      const slash = key.indexOf('/');
      return key.indexOf('/', slash + 1) > 0 ? key.slice(slash + 1) : null;
    },
  },
];
