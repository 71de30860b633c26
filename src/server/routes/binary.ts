import { Hono } from 'hono';
import { usageAccountOf } from '../../storage/index.js';
import { resolveCiIdentity } from '../ci-identity.js';
import type { AppDeps } from '../deps.js';
import { paymentRequired, tooManyRequests, unavailable } from '../errors.js';
import type { AuthVariables } from '../middleware/authenticate.js';
import { usageMonth } from '../usage-month.js';

/** `GET /api/action/binary` (spec 4.1, 5, 7.1): the scanner for a CI run, counted against the plan. */
export function binaryRoute(deps: AppDeps, now: () => Date) {
  return new Hono<{ Variables: AuthVariables }>().get('/', async (c) => {
    const principal = c.get('principal');
    const identity = await resolveCiIdentity(
      {
        codehostAToken: c.req.header('x-codehosta-oidc'),
        codehostBToken: c.req.header('x-codehostb-oidc'),
        codehostbProject: c.req.query('codehostb_project'),
        repo: c.req.query('repo'),
      },
      principal.plan,
      deps.identity,
    );
    if (principal.plan === 'free' && identity.visibility !== 'public') {
      throw paymentRequired(
        identity.visibility === null
          ? `the Free plan scans public repositories only, and ${identity.repository} could not be confirmed public`
          : `${identity.repository} is ${identity.visibility}: the Free plan scans public repositories only`,
      );
    }
    const binary = await deps.binary.current();
    if (binary === null) throw unavailable('the scanner executable is not published on this server');

    const account = usageAccountOf(principal.user, principal.team);
    const limit = deps.config.monthlyCiRuns[principal.plan];
    const month = usageMonth(now());
    const count = await deps.store.countCiRun(account, month.key, limit);
    if (!count.counted) {
      throw tooManyRequests(
        `monthly CI runs used up: ${limit} on the ${principal.plan === 'free' ? 'Free' : 'paid'} plan for ${month.key}`,
        month.secondsToNext,
      );
    }
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
      'X-Svc-CI-Runs-Remaining': String(Math.max(0, limit - count.used)),
    });
  });
}
