import { Hono } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AuthVariables } from '../middleware/authenticate.js';
import { jsonBody } from './json-body.js';

/** `/api/team` and `/api/team/mode` (contract 6): the caller's team; owners switch block/warn. */
export function teamRoute(deps: AppDeps) {
  return new Hono<{ Variables: AuthVariables }>()
    .get('/', async (c) => {
      const view = await deps.team.teamOf(c.get('principal'));
      if (view === null) return c.json({ team: null });
      return c.json({
        team: {
          name: view.team.name,
          plan: view.team.plan,
          hookMode: view.team.hookMode,
          hookModeSetBy: view.hookModeSetBy,
          hookModeSetAt: view.hookModeSetAt?.toISOString() ?? null,
          role: view.role,
          members: view.members.map((m) => ({ email: m.user.email, role: m.role })),
        },
      });
    })
    .put('/mode', async (c) => {
      const team = await deps.team.setMode(c.get('principal'), (await jsonBody(c)).mode);
      return c.json({ team: { name: team.name, hookMode: team.hookMode } });
    });
}
