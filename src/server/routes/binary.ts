import { Hono } from 'hono';
import { loggableName, unavailable } from '../../services/errors.js';
import type { AppDeps } from '../deps.js';
import type { AuthVariables } from '../middleware/authenticate.js';

/**
 * `GET /api/action/binary`: the scanner executable for a CI run. The run's repository must pass the
 * plan's rules, and each complete download is one CI run of the month's allowance.
 *
 * The run is counted before the body is sent, so that the monthly limit holds atomically (twenty
 * parallel downloads against ten remaining runs get ten executables), and given back if the body is
 * not handed over completely (the client went away). `HEAD` answers the same headers and counts nothing.
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
    // About a third of the size on the wire (curl --compressed); the digest is of the executable itself.
    const gzip = binary.gzipped !== null && /\bgzip\b/.test(c.req.header('accept-encoding') ?? '');
    const body = gzip ? binary.gzipped! : binary;

    let remaining: number;
    let stream: ReadableStream<Uint8Array> | null = null;
    if (c.req.method === 'HEAD') {
      const usage = await deps.ciRuns.usage(principal);
      remaining = Math.max(0, usage.limit - usage.used);
    } else {
      const run = await deps.ciRuns.count(principal);
      remaining = run.remaining;
      stream = givenBackIfIncomplete(body.stream(), body.size, () =>
        run.release().then(
          () => deps.logger.info('CI run given back: the download did not complete'),
          (e: unknown) => deps.logger.warn({ error: loggableName(e) }, 'CI run not given back'),
        ),
      );
    }
    const headers = {
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(body.size),
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
      Vary: 'Accept-Encoding',
      'Content-Disposition': 'attachment; filename="svc-linux-x64"',
      'X-Svc-Sha256': binary.sha256,
      'X-Svc-Size': String(binary.size),
      'X-Svc-CI-Runs-Remaining': String(remaining),
    };
    return stream === null ? c.body(null, 200, headers) : c.body(stream, 200, headers);
  });
}

/**
 * `source` (`size` bytes), calling `onIncomplete` once if it is cancelled (the client closed the
 * connection) or fails before its last byte was handed to the HTTP layer.
 *
 * Complete means the last byte handed over, not the stream's end read: a client (or a balancer) that
 * has all `Content-Length` bytes may close the connection before the end is read, and must not get
 * its run back.
 */
function givenBackIfIncomplete(
  source: ReadableStream<Uint8Array>,
  size: number,
  onIncomplete: () => void,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let handedOver = 0;
  let settled = false;
  const incomplete = () => {
    if (settled) return;
    settled = true;
    onIncomplete();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          settled = true;
          controller.close();
        } else {
          handedOver += value.byteLength;
          if (handedOver >= size) settled = true;
          controller.enqueue(value);
        }
      } catch (error) {
        incomplete();
        controller.error(error);
      }
    },
    cancel(reason) {
      incomplete();
      return reader.cancel(reason);
    },
  });
}
