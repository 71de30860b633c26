import { Hono } from 'hono';
import { usageAccountOf } from '../../storage/index.js';
import type { AppDeps } from '../deps.js';
import type { AuthVariables } from '../middleware/authenticate.js';
import { usageMonth } from '../usage-month.js';

/**
 * `GET /api/account`: who a key belongs to, its plan and this month's CI runs, so an integration
 * can tell its user how many runs are left. Presented from an allowlist: never a key or its hash.
 */
export function accountRoute(deps: AppDeps, now: () => Date) {
  return new Hono<{ Variables: AuthVariables }>().get('/', async (c) => {
    const { user, team, plan, key } = c.get('principal');
    const month = usageMonth(now());
    const used = await deps.store.ciRunsUsed(usageAccountOf(user, team), month.key);
    return c.json({
      email: user.email,
      plan,
      team: team ? { name: team.name, hookMode: team.hookMode } : null,
      key: { name: key.name, prefix: key.prefix },
      ciRuns: { month: month.key, used, limit: deps.config.monthlyCiRuns[plan] },
    });
  });
}
