// The mutation-testing groups (stryker.config.mjs, vitest.stryker.config.ts): for each, the modules
// Stryker mutates and the unit tests it runs against them. Most mutants of rule tables and regexes
// are "static" (evaluated when the module loads), and each of those runs every test of its group, so
// a group lists only the tests that reach its modules: nothing that starts processes, databases or
// the whole service.
export const GROUPS = {
  location: {
    mutate: ['src/scanner/location.ts'],
    tests: ['src/scanner/location.test.ts'],
  },
  detection: {
    mutate: ['src/scanner/rules/*.ts', 'src/scanner/detect/*.ts'],
    tests: [
      'src/scanner/rules/rules.test.ts',
      'src/scanner/rules/boundaries.test.ts',
      'src/scanner/detect/detect.test.ts',
      'src/scanner/scan-text.test.ts',
      // The reports show each rule's title, description and help: these pin them.
      'src/scanner/report/*.test.ts',
    ],
  },
  findings: {
    mutate: [
      'src/scanner/fingerprint.ts',
      'src/scanner/ignore.ts',
      'src/scanner/ignore-line.ts',
      'src/scanner/summary.ts',
    ],
    tests: ['src/scanner/ignore-line.test.ts', 'src/scanner/summary.test.ts'],
  },
  server: {
    mutate: ['src/server/middleware/client-ip.ts', 'src/server/rate-limits.ts'],
    tests: ['src/server/middleware/client-ip.test.ts', 'src/server/rate-limits.test.ts'],
  },
  services: {
    mutate: ['src/services/ci-identity.ts', 'src/services/ci-runs.ts', 'src/services/vocabulary.ts'],
    tests: ['src/services/ci-identity.test.ts', 'src/services/ci-runs.test.ts'],
  },
  verify: {
    mutate: [
      'src/verify/outcome.ts',
      'src/verify/http.ts',
      'src/verify/codehost.ts',
      'src/verify/payment.ts',
      'src/verify/chat.ts',
    ],
    tests: ['src/verify/checks.test.ts', 'src/verify/verifier.test.ts'],
  },
  hooks: {
    mutate: ['src/hooks/decide.ts', 'src/hooks/risk/*.ts'],
    tests: [
      'src/hooks/decide.test.ts',
      'src/hooks/risk/assess.test.ts',
      'src/hooks/risk/osv.test.ts',
      'src/hooks/risk/typosquat.test.ts',
    ],
  },
};

/** The group named by MUTATION_GROUP, or every group merged (unset or `all`). */
export function selectedGroup(name = process.env.MUTATION_GROUP ?? 'all') {
  if (name === 'all') {
    const all = Object.values(GROUPS);
    return { name, mutate: all.flatMap((g) => g.mutate), tests: all.flatMap((g) => g.tests) };
  }
  const group = GROUPS[name];
  if (group === undefined) {
    throw new Error(`MUTATION_GROUP must be one of ${Object.keys(GROUPS).join(', ')} (or unset for all)`);
  }
  return { name, ...group };
}
