import type { Logger } from 'pino';
import { type Config, loadConfig } from '../config/config.js';
import { createLogger, serviceLogDestination } from '../server/logger.js';
import { createServices, type Services } from './create-services.js';
import { type CliIo, EXIT, UsageError } from './io.js';
import { untilStopSignal } from './stop-signal.js';

/** What a long-running command starts, given its services; resolves to how to stop it. */
export type StartWork = (services: Services, config: Config, logger: Logger) => Promise<() => Promise<void>>;

/**
 * The life of `svc serve` and `svc worker`: `--help`, no arguments, the services on the configured
 * database with the service's log, then `start`, until SIGINT or SIGTERM; then its stop, the
 * services closed and the log flushed, exit 0.
 */
export async function runUntilStopped(
  argv: string[],
  io: CliIo,
  help: string,
  start: StartWork,
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(help);
    return EXIT.passed;
  }
  if (argv.length > 0) throw new UsageError(`unexpected argument: ${argv[0]}`);
  const config = loadConfig(io.env);
  const logs = serviceLogDestination();
  const logger = createLogger(logs);
  const services = await createServices(config, { logger });
  const stop = await start(services, config, logger);

  const signal = await untilStopSignal();
  logger.info({ signal }, 'shutting down');
  await stop();
  await services.close();
  logs.flushSync();
  return EXIT.passed;
}
