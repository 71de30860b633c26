import { defineConfig } from 'vitest/config';
import { selectedGroup } from './stryker.groups.mjs';
import { LoadFailureReporter } from './test/mutation/load-failure-reporter.js';

/**
 * The unit tests Stryker runs against each mutant (stryker.config.mjs): only those of the group being
 * mutated (stryker.groups.mjs), in a fixed order, so one mutant's run stays short. The full suite is
 * `vitest.config.ts`.
 */
export default defineConfig({
  test: {
    include: selectedGroup().tests,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A mutant that stops a module from loading must count as killed (see the reporter).
    reporters: ['default', new LoadFailureReporter()],
  },
});
