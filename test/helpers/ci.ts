/**
 * Whether the tests run in CI, where every backing service (PostgreSQL, Redis, redis-server) must be
 * there and a missing one fails instead of skipping. CI services set `CI` to `true`, `1` or their own
 * name; any value counts except empty, `0` and `false` (in any case), which are how one turns it off.
 */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}
