/**
 * How npm names look alike beyond a typing mistake: a scope dropped (`babel-core`, `babelcore` for
 * `@babel/core`) or faked after the package's own name (`@lodash/lodash` for `lodash`). A scoped
 * package whose unscoped name is popular (`@koa/bodyparser` / `koa-bodyparser`) is not flagged: such
 * scopes are mostly the projects' own (docs/popularity-lists.md).
 */
import type { NameConfusion } from '../ecosystem-descriptor.js';
import { withoutSeparators } from '../without-separators.js';

/** `@scope/name` → [scope, name]; null when unscoped. */
export function splitScope(key: string): [string, string] | null {
  if (!key.startsWith('@')) return null;
  const slash = key.indexOf('/');
  if (slash < 0) return null;
  return [key.slice(1, slash), key.slice(slash + 1)];
}

/** The scope publishes the name: names in one scope cannot squat each other. */
export function npmPublisher(key: string): string | null {
  return splitScope(key)?.[0] ?? null;
}

export const npmConfusions: readonly NameConfusion[] = [
  {
    // `babel-core`, `babelcore` for `@babel/core`: a popular scoped name with its scope joined in.
    kind: 'scope',
    indexKey(popular) {
      const scoped = splitScope(popular);
      return scoped ? withoutSeparators(scoped[0] + scoped[1]) : null;
    },
    probeKey: (key, bare) => (splitScope(key) ? null : bare),
  },
  {
    // `@lodash/lodash`: a popular unscoped name under a scope named after it.
    kind: 'scope',
    indexKey: (popular, bare) => (splitScope(popular) ? null : bare),
    probeKey(key) {
      const scoped = splitScope(key);
      if (!scoped) return null;
      const bare = withoutSeparators(scoped[1]);
      return withoutSeparators(scoped[0]) === bare ? bare : null;
    },
  },
];
