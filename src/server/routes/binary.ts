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
    // Smaller on the wire: xz (29 MB) for the CI scripts that ask for it and undo it themselves, gzip
    // (44 MB) for curl --compressed, else the executable (127 MB). The digest is of the executable.
    const coding = contentCoding(c.req.header('accept-encoding'), binary);
    const body = coding === 'xz' ? binary.xz! : coding === 'gzip' ? binary.gzipped! : binary;

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
      ...(coding === null ? {} : { 'Content-Encoding': coding }),
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

/**
 * The content coding to send: the client's first choice among those it accepts (a q of 0 refuses
 * one) that the build wrote, xz before gzip when both are equal; null for the executable as it is.
 */
function contentCoding(
  acceptEncoding: string | undefined,
  binary: { gzipped: unknown; xz: unknown },
): 'xz' | 'gzip' | null {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const xz = binary.xz !== null ? (accepted.get('xz') ?? 0) : 0;
  const gzip = binary.gzipped !== null ? (accepted.get('gzip') ?? 0) : 0;
  if (xz > 0 && xz >= gzip) return 'xz';
  return gzip > 0 ? 'gzip' : null;
}
