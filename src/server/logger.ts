import { type DestinationStream, type Logger, pino } from 'pino';

/**
 * Log lines written asynchronously (batched under load): a synchronous write per request was an eighth of
 * the cost of an authenticated request (npm run bench:http). `flush` on shutdown keeps the tail.
 */
export function serviceLogDestination(): DestinationStream & { flushSync(): void } {
  return pino.destination({ dest: 1, sync: false });
}

/**
 * The service's logger. Request lines carry no headers at all (see request-log.ts); the redaction
 * paths are a second line of defence for anything that ever logs a request or its headers.
 */
export function createLogger(destination?: DestinationStream, level = 'info'): Logger {
  return pino(
    {
      level,
      base: { service: 'svc' },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'headers.cookie',
          '*.password',
          'password',
          'req.headers["x-codehosta-oidc"]',
          'req.headers["x-codehostb-oidc"]',
          'headers.authorization',
          'headers["x-codehosta-oidc"]',
          'headers["x-codehostb-oidc"]',
          '*.apiKey',
          '*.token',
          '*.key',
          'apiKey',
          'token',
          'key',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
