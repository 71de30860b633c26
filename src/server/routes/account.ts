import { Hono } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AuthVariables } from '../middleware/authenticate.js';

/**
 * `GET /api/account`: who a key belongs to, its plan and this month's CI runs, so an integration
 * can tell its user how many runs are left. Presented from an allowlist: never a key or its hash.
 */
export function accountRoute(deps: AppDeps) {
  return new Hono<{ Variables: AuthVariables }>().get('/', async (c) => {
    const principal = c.get('principal');
    const { user, team, plan, key } = principal;
    const { month, used, limit } = await deps.ciRuns.usage(principal);
    return c.json({
      email: user.email,
      plan,
      team: team ? { name: team.name, hookMode: team.hookMode } : null,
      key: key === null ? null : { name: key.name, prefix: key.prefix },
      ciRuns: { month, used, limit },
    });
  });
}
