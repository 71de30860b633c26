import { Hono } from 'hono';
import { MCP_MAX_BODY_BYTES, mcpRoute } from '../mcp/endpoint.js';
import type { AppDeps } from '../server/deps.js';
import { httpErrorOf } from '../server/errors.js';
import { type AuthVariables, authenticate } from '../server/middleware/authenticate.js';
import { limitRequestBodies } from '../server/middleware/body-limit.js';
import { clientIp, type NodeBindings } from '../server/middleware/client-ip.js';
import { rateLimit } from '../server/middleware/rate-limit.js';
import { fitForLog, requestLog } from '../server/middleware/request-log.js';
import { securityHeaders } from '../server/middleware/security-headers.js';
import { sessionIdOf } from '../server/middleware/session-cookie.js';
import { accountRoute } from '../server/routes/account.js';
import { appWebhookRoute, MAX_DELIVERY_BYTES } from '../server/routes/app-a-webhook.js';
import { binaryRoute } from '../server/routes/binary.js';
import { type HookVariables, hooksRoute, MAX_HOOK_BODY_BYTES } from '../server/routes/hooks.js';
import { integrationsRoute } from '../server/routes/integrations.js';
import { keysRoute } from '../server/routes/keys.js';
import { scansRoute } from '../server/routes/scans.js';
import { teamRoute } from '../server/routes/team.js';
import { withinMs } from '../services/within-ms.js';
import { DatabaseUnavailableError } from '../storage/index.js';
import { VERSION } from '../version.js';
import { assetsRoute } from '../web/assets.js';
import { authRoutes } from '../web/auth-routes.js';
import { dashboardRoutes } from '../web/dashboard-routes.js';
import { pageHeaders, setPageHeaders } from '../web/page-support.js';
import { ErrorPage, NotFoundPage, wantsNotFoundPage, wantsPage } from '../web/pages/error.js';
import { passwordLinkRoutes } from '../web/password-link-routes.js';

/** A health check answers within this even when the database does not. */
const HEALTH_PING_MS = 2000;

export type AppEnv = { Bindings: NodeBindings; Variables: AuthVariables & HookVariables };

/**
 * The service as a Hono app. It never listens: the entry point (`svc serve`) owns the socket, and
 * tests call `app.request()`. Order per request: log, rate limit, route (authenticate, domain, present).
 */
export function createApp(deps: AppDeps) {
  const ipOf = (c: Parameters<typeof clientIp>[0]) => clientIp(c, deps.config.trustProxy);
  const auth = authenticate(deps.principals, deps.sessions, deps.config.baseUrl, '/api/hooks/');

  const app = new Hono<AppEnv>();
  // First, so that every answer (errors, 404s, rate limits included) leaves with its headers.
  app.use('*', securityHeaders(deps.config.baseUrl));
  app.use('*', requestLog(deps.logger, ipOf));
  app.use('*', rateLimit(deps.rateLimiters, ipOf, deps.logger));
  // Every body bounded while it is read, on every path (contract 4): no route can forget it.
  app.use(
    '*',
    limitRequestBodies([
      { prefix: '/api/hooks/', limit: MAX_HOOK_BODY_BYTES },
      { prefix: '/mcp', limit: MCP_MAX_BODY_BYTES },
      { prefix: '/api/apps/codehost-a/webhook', limit: MAX_DELIVERY_BYTES },
    ]),
  );

  // Liveness, for a load balancer's checks: the process answers. /healthz is readiness (it also needs
  // the database); a database restart must not take every instance out of rotation, since the hooks
  // keep answering while it is down.
  app.get('/livez', (c) => c.json({ status: 'ok', version: VERSION }));
  // Readiness: 503 while this instance's database is unreachable.
  app.get('/healthz', async (c) => {
    const reachable = await withinMs(deps.storage.ping(), HEALTH_PING_MS).then(
      () => true,
      () => false,
    );
    return reachable
      ? c.json({ status: 'ok', version: VERSION, database: 'reachable' })
      : c.json({ status: 'unavailable', version: VERSION, database: 'unreachable' }, 503);
  });
  app.route('/', integrationsRoute(deps));
  app.route('/', assetsRoute());
  // The dashboard: pages under / and /dashboard, sign-in under /auth (20 requests a minute per IP).
  for (const path of ['/', '/auth/*', '/dashboard', '/dashboard/*']) app.use(path, pageHeaders);
  app.get('/', (c) =>
    c.redirect(sessionIdOf(c, deps.config.baseUrl) === undefined ? '/auth/signin' : '/dashboard', 303),
  );
  app.route('/auth', authRoutes(deps));
  app.route('/auth', passwordLinkRoutes(deps));
  app.route('/dashboard', dashboardRoutes(deps));
  // The GitHub application's deliveries carry a signature, not a key: mounted before the key check.
  app.route('/api/apps/codehost-a/webhook', appWebhookRoute(deps));
  // The hook endpoints authenticate themselves: a wrong key there must allow, not answer 401.
  app.use('/api/*', auth);
  app.route('/api/hooks', hooksRoute(deps));
  app.route('/api/account', accountRoute(deps));
  app.route('/api/keys', keysRoute(deps));
  app.route('/api/team', teamRoute(deps));
  app.route('/api/action/binary', binaryRoute(deps));
  app.route('/api/scans', scansRoute(deps));
  // MCP answers a missing or bad key itself: 401 with `WWW-Authenticate: Bearer`, as MCP clients expect.
  app.route('/mcp', mcpRoute(deps));

  app.notFound((c) => {
    if (wantsNotFoundPage(c.req.path, c.req.header('accept'))) {
      // Outside the page paths' middleware: the pages' headers set here.
      setPageHeaders(c);
      return c.html(NotFoundPage({ path: c.req.path }), 404);
    }
    return c.json({ error: `not found: ${c.req.method} ${c.req.path}` }, 404);
  });
  app.onError((err, c) => {
    const known = httpErrorOf(err);
    if (known !== null) {
      if (err instanceof DatabaseUnavailableError) {
        deps.logger.warn({ reason: err.reason, path: fitForLog(c.req.path) }, 'database unavailable');
      }
      if (wantsPage(c.req.path, c.req.header('accept'))) {
        return c.html(
          ErrorPage({ status: known.status, message: known.message }),
          known.status,
          known.headers,
        );
      }
      return c.json({ error: known.message }, known.status, known.headers);
    }
    // The error's name and message only: a stack or cause could carry request data.
    deps.logger.error(
      { error: err.name, message: fitForLog(err.message), path: fitForLog(c.req.path) },
      'unhandled error',
    );
    if (wantsPage(c.req.path, c.req.header('accept')))
      return c.html(ErrorPage({ status: 500, message: 'internal error' }), 500);
    return c.json({ error: 'internal error' }, 500);
  });
  return app;
}
