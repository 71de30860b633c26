import { Hono } from 'hono';
import type { AppDeps } from '../deps.js';
import type { AuthVariables } from '../middleware/authenticate.js';
import { presentScan, presentScanSummary } from '../scan-view.js';

/**
 * Dashboard scans (contract section 7): `POST /` queues one (202), `GET /` lists the caller's and
 * their team's, `GET /:id` one of them (404 for anyone else's), `POST /:id/cancel` stops one (409
 * once it has ended). The 5-a-minute limit on starts is
 * the rate-limit middleware's `scanStart` scope. Presented from an allowlist.
 */
export function scansRoute(deps: AppDeps) {
  return (
    new Hono<{ Variables: AuthVariables }>()
      // The body is at most 16 KiB (app.ts's limitRequestBodies); a URL is at most 2,048 characters.
      .post('/', async (c) => {
        const body: unknown = await c.req.json().catch(() => null);
        const scan = await deps.scans.start(c.get('principal'), body);
        return c.json({ id: scan.id, status: scan.status }, 202);
      })
      .get('/', async (c) => {
        const scans = await deps.scans.list(c.get('principal'));
        return c.json({ scans: scans.map(presentScanSummary) });
      })
      .post('/:id/cancel', async (c) => {
        const scan = await deps.scans.cancel(c.get('principal'), c.req.param('id'));
        return c.json({ id: scan.id, status: scan.status });
      })
      .get('/:id', async (c) =>
        c.json(presentScan(await deps.scans.get(c.get('principal'), c.req.param('id')))),
      )
  );
}
