/**
 * Whether the tests run in CI, where every backing service (PostgreSQL, Redis, redis-server) must be
 * there and a missing one fails instead of skipping. CI services set `CI` to `true`, `1` or their own
 * name; any value counts except empty, `0` and `false` (in any case), which are how one turns it off.
 */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

/**
 * The seed of the test run's random draws: SVC_TEST_SEED if set, else in CI one fixed seed (a
 * shuffled order and property draws known to pass, so a landing never depends on the draw), else
 * none (each run draws anew). vitest.config.ts orders the tests by it; test/setup/property-seed.ts
 * seeds fast-check with it.
 */
export function testSeed(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const seed = env.SVC_TEST_SEED ?? (isCi(env) ? '1795430822463' : undefined);
  return seed === undefined ? undefined : Number(seed);
}
