import { Writable } from 'node:stream';
import { createLogger } from '../../src/server/logger.js';

/** The service's logger writing into memory, so a test can search every line it wrote. */
export function captureLogger() {
  const logs: string[] = [];
  const logger = createLogger(
    new Writable({
      write(chunk, _enc, done) {
        logs.push(String(chunk));
        done();
      },
    }),
  );
  return { logger, logs };
}
