import { Hono } from 'hono';
import { unavailable } from '../../services/errors.js';
import type { AppDeps } from '../deps.js';
import type { AuthVariables } from '../middleware/authenticate.js';

/**
 * `GET /api/action/binary`: the scanner executable for a CI run. The run's repository must pass the
 * plan's rules, and each download is one CI run of the month's allowance.
 */
export function binaryRoute(deps: AppDeps) {
  return new Hono<{ Variables: AuthVariables }>().get('/', async (c) => {
    const principal = c.get('principal');
    await deps.ciRuns.authorize(principal, {
      codehostAToken: c.req.header('x-codehosta-oidc'),
      codehostBToken: c.req.header('x-codehostb-oidc'),
      codehostbProject: c.req.query('codehostb_project'),
      repo: c.req.query('repo'),
    });
    const binary = await deps.binary.current();
    if (binary === null) throw unavailable('the scanner executable is not published on this server');
    const run = await deps.ciRuns.count(principal);

    // About a third of the size on the wire (curl --compressed); the digest is of the executable itself.
    const gzip = binary.gzipped !== null && /\bgzip\b/.test(c.req.header('accept-encoding') ?? '');
    const body = gzip ? binary.gzipped! : binary;
    return c.body(body.stream(), 200, {
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(body.size),
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
      Vary: 'Accept-Encoding',
      'Content-Disposition': 'attachment; filename="svc-linux-x64"',
      'X-Svc-Sha256': binary.sha256,
      'X-Svc-Size': String(binary.size),
      'X-Svc-CI-Runs-Remaining': String(run.remaining),
    });
  });
}
