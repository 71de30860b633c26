import { loadConfig } from '../config/config.js';
import { createLogger, serviceLogDestination } from '../server/logger.js';
import { createServices } from './create-services.js';
import { type CliIo, EXIT, UsageError } from './io.js';
import { untilStopSignal } from './stop-signal.js';

export const WORKER_HELP = `Usage: svc worker

Runs dashboard scans only, without serving HTTP: for instances that scale scans apart from requests.
It takes scans from the same queue as svc serve (SVC_SCAN_QUEUE: database, the default, or bullmq
on SVC_REDIS_URL), with the same configuration (SVC_DATABASE_URL, SVC_SCAN_*).
Stops gracefully on SIGINT or SIGTERM, giving a scan in progress back to the queue.
`;

export async function workerCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(WORKER_HELP);
    return EXIT.passed;
  }
  if (argv.length > 0) throw new UsageError(`unexpected argument: ${argv[0]}`);
  const config = loadConfig(io.env);
  const logs = serviceLogDestination();
  const logger = createLogger(logs);
  const services = await createServices(config, { logger });
  const scanWorker = await services.startScanWorker();
  logger.info(
    { queue: config.scans.queue, database: config.databaseUrl.split(':')[0] },
    'scan worker started',
  );

  const signal = await untilStopSignal();
  logger.info({ signal }, 'shutting down');
  await scanWorker.stop();
  await services.close();
  logs.flushSync();
  return EXIT.passed;
}
