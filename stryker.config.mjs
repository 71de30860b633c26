// Mutation testing (`npm run test:mutation`; not part of `npm test`): Stryker changes the code that
// decides outcomes one small edit at a time and checks that some unit test fails for each edit.
// README "Tests" has the latest scores; docs/mutation-testing.md lists the mutants that are equivalent.
//
// One group at a time: MUTATION_GROUP=location npm run test:mutation (groups and their tests in
// stryker.groups.mjs; unset: all groups in one run).
// Each group keeps its own incremental file, so a group's run reuses the results of its last run for
// every mutant whose code and covering tests did not change. Those files live under reports/ and are
// not committed: they are a cache of one machine's last run (three branches committing them would
// conflict on every merge), and a missing one only makes the next run a full one.

import { selectedGroup } from './stryker.groups.mjs';

const group = selectedGroup();

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: [...group.mutate, '!**/*.test.ts'],
  // Which tests cover which mutant, so each mutant runs only the tests that reach it.
  coverageAnalysis: 'perTest',
  // Two cores shared with other work: one test process at a time.
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
  incremental: true,
  incrementalFile: `reports/mutation/${group.name}.incremental.json`,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${group.name}.html` },
  jsonReporter: { fileName: `reports/mutation/${group.name}.json` },
  thresholds: { high: 90, low: 80, break: null },
  timeoutMS: 10_000,
  ignorePatterns: ['dist', 'bench', 'docs', 'integrations', 'build', 'reports', 'coverage', '.bench'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
