import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { createApp } from '../app/app.js';
import type { Config } from '../config/config.js';
import { serveApp } from '../server/serve-app.js';
import type { CliIo } from './io.js';
import { runUntilStopped } from './service-lifetime.js';

export const SERVE_HELP = `Usage: svc serve

Runs the service (also: npm start). Configuration comes from the environment (see README):
PORT, HOST, SVC_DATABASE_URL (default sqlite:./data/svc.db, created on first start), SVC_REDIS_URL,
SVC_SCAN_HOSTS, SVC_SCAN_MAX_BYTES, SVC_SCAN_TIMEOUT_S, ...
Runs the dashboard scan worker in the same process (more run as svc worker; SVC_SCAN_QUEUE=bullmq
takes scans from BullMQ on SVC_REDIS_URL, for several instances).
Stops gracefully on SIGINT or SIGTERM: requests in flight get 8 s, a running scan is given back to
the queue, and the process exits within 10 s.
`;

export function serveCommand(argv: string[], io: CliIo): Promise<number> {
  return runUntilStopped(argv, io, SERVE_HELP, async (services, config, logger) => {
    // The embedded queue's worker runs here, so `npm start` alone runs dashboard scans.
    const scanWorker = await services.startScanWorker();
    const server = await serveApp(createApp(services), { port: config.port, hostname: config.host });
    logger.info(
      { url: `http://${config.host}:${config.port}`, database: config.databaseUrl.split(':')[0] },
      'listening',
    );
    io.stderr.write(startupLines(config, existsSync(config.binaryPath)));
    // At once, side by side: a scan in progress is given back to the queue (another instance, or
    // the next start, runs it) while the requests in flight finish.
    return async () => {
      await Promise.all([stopServing(server, logger), scanWorker.stop()]);
    };
  });
}

/**
 * What a person who ran `npm start` needs to read among the JSON logs: where it listens, what to
 * open, and, when the scanner executable is not built, that CI downloads fail until it is.
 */
export function startupLines(config: Config, binaryBuilt: boolean): string {
  const lines = [
    `svc: listening on http://${config.host}:${config.port} (database: ${config.databaseUrl.split(':')[0]}); ` +
      `open ${config.baseUrl}/ to sign in. Stop with Ctrl-C.`,
  ];
  if (!binaryBuilt) {
    lines.push(
      `svc: warning: the scanner executable ${config.binaryPath} is not built: CI downloads ` +
        '(/api/action/binary) answer 503 until you run `npm run build:binary`.',
    );
  }
  return lines.map((line) => `${line}\n`).join('');
}

/** How long requests in flight get to finish after a stop signal, inside the 10 s a stop may take. */
export const REQUEST_GRACE_MS = 8000;

/**
 * Stops accepting connections and lets the requests in flight finish; past REQUEST_GRACE_MS the
 * connections still open (a download to a client that stopped reading) are closed, so a stop never
 * waits on a client. Idle keep-alive sockets are closed at once.
 */
function stopServing(server: Server, logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    const cutOff = setTimeout(() => {
      logger.warn(
        { graceMs: REQUEST_GRACE_MS },
        'requests still in flight at the stop deadline: connections closed',
      );
      server.closeAllConnections();
    }, REQUEST_GRACE_MS);
    server.close(() => {
      clearTimeout(cutOff);
      resolve();
    });
    server.closeIdleConnections();
  });
}
