/**
 * The layering of src/ (docs/ARCHITECTURE.md), checked by `npm run lint:layers` inside `npm test`.
 * Dependencies point down: L0 scanner, L1 verify/hooks/storage/auth, L2 services, L3 server/mcp/web,
 * L3.5 app (the one composition root that mounts server's API, web's pages and mcp on one Hono app),
 * L4 cli. web/ (the dashboard's pages, .tsx) and mcp/ may take server's HTTP plumbing (middleware,
 * errors, deps); server/ imports neither of them.
 * Tests (`*.test.ts`) may reach anything: they are not part of the product.
 */
const notTests = '\\.test\\.tsx?$';

/** A rule that modules matching `from` (and not `except`) import nothing matching `to`. */
const forbid = (name, comment, from, to, except = []) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from, pathNot: [notTests, ...except] },
  to,
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'An import cycle makes load order matter and hides which module owns what. A cycle closed only by ' +
        'type imports (erased at build time) is allowed: hooks/types.ts takes the Ecosystem type from the ' +
        'list of ecosystem descriptors, so that adding an ecosystem touches one list.',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    forbid(
      'scanner-is-a-library',
      'src/scanner (L0) imports only node:* built-ins and itself: the single executable and every layer reuse it.',
      '^src/scanner/',
      { pathNot: '^src/scanner/', dependencyTypesNot: ['core'] },
    ),
    forbid(
      'l1-below-services',
      'verify, hooks, storage and auth (L1) never import services, server, mcp, web, app or cli.',
      '^src/(verify|hooks|storage|auth)/',
      { path: '^src/(services|server|mcp|web|app|cli)/' },
    ),
    forbid(
      'services-below-adapters',
      'services (L2) hold the rules; entry points (server, mcp, web, cli) are thin adapters above them.',
      '^src/services/',
      { path: '^src/(server|mcp|web|app|cli)/' },
    ),
    forbid(
      'server-below-web-and-mcp',
      'server/ (the JSON API and the HTTP plumbing) never imports the pages or MCP: app/ mounts them all.',
      '^src/server/',
      { path: '^src/(web|mcp|app)/' },
    ),
    forbid(
      'adapters-below-app',
      'server, mcp and web (L3) never import the composition root (L3.5).',
      '^src/(server|mcp|web)/',
      { path: '^src/app/' },
    ),
    forbid(
      'adapters-below-cli',
      'server, mcp, web and app (L3) never import the command line (L4), which starts them.',
      '^src/(server|mcp|web|app)/',
      { path: '^src/cli/' },
    ),
    forbid(
      'only-storage-holds-sql',
      'SQL and database drivers live in src/storage only.',
      '^src/',
      { path: 'node_modules/(kysely|pg|better-sqlite3)/' },
      ['^src/storage/'],
    ),
    forbid(
      'config-read-at-the-edge',
      'Configuration is parsed once by the command line; library code takes options.',
      '^src/',
      { path: '^src/config/' },
      ['^src/(cli|config)/'],
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
