import { Hono } from 'hono';
import { except } from 'hono/combine';
import { VERSION } from '../version.js';
import type { AppDeps } from './deps.js';
import { HttpError } from './errors.js';
import { type AuthVariables, authenticate } from './middleware/authenticate.js';
import { clientIp, type NodeBindings } from './middleware/client-ip.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestLog } from './middleware/request-log.js';
import { accountRoute } from './routes/account.js';
import { binaryRoute } from './routes/binary.js';
import { type HookVariables, hooksRoute } from './routes/hooks.js';

export type AppEnv = { Bindings: NodeBindings; Variables: AuthVariables & HookVariables };

/**
 * The service as a Hono app. It never listens: the entry point (`svc serve`) owns the socket, and
 * tests call `app.request()`. Order per request: log, rate limit, route (authenticate, domain, present).
 */
export function createApp(deps: AppDeps) {
  const now = deps.now ?? (() => new Date());
  const ipOf = (c: Parameters<typeof clientIp>[0]) => clientIp(c, deps.config.trustProxy);
  const auth = authenticate(deps.store, now);

  const app = new Hono<AppEnv>();
  app.use('*', requestLog(deps.logger, ipOf));
  app.use('*', rateLimit(deps.rateLimiters, ipOf, deps.logger));

  app.get('/healthz', (c) => c.json({ status: 'ok', version: VERSION }));
  // The hook endpoints authenticate themselves: a wrong key there must allow, not answer 401.
  app.use('/api/*', except('/api/hooks/*', auth));
  app.route('/api/hooks', hooksRoute(deps, now));
  app.route('/api/account', accountRoute(deps, now));
  app.route('/api/action/binary', binaryRoute(deps, now));

  app.notFound((c) => c.json({ error: `not found: ${c.req.method} ${c.req.path}` }, 404));
  app.onError((err, c) => {
    if (err instanceof HttpError) return c.json({ error: err.message }, err.status, err.headers);
    // The error's name and message only: a stack or cause could carry request data.
    deps.logger.error({ error: err.name, message: err.message, path: c.req.path }, 'unhandled error');
    return c.json({ error: 'internal error' }, 500);
  });
  return app;
}
