import type { CliIo } from './io.js';
import { runUntilStopped } from './service-lifetime.js';

export const WORKER_HELP = `Usage: svc worker

Runs dashboard scans only, without serving HTTP: for instances that scale scans apart from requests.
It takes scans from the same queue as svc serve (SVC_SCAN_QUEUE: database, the default, or bullmq
on SVC_REDIS_URL), with the same configuration (SVC_DATABASE_URL, SVC_SCAN_*).
Stops gracefully on SIGINT or SIGTERM, giving a scan in progress back to the queue.
`;

export function workerCommand(argv: string[], io: CliIo): Promise<number> {
  return runUntilStopped(argv, io, WORKER_HELP, async (services, config, logger) => {
    const scanWorker = await services.startScanWorker();
    logger.info(
      { queue: config.scans.queue, database: config.databaseUrl.split(':')[0] },
      'scan worker started',
    );
    return () => scanWorker.stop();
  });
}
