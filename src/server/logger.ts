import { type DestinationStream, type Logger, pino } from 'pino';

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
