import { once } from 'node:events';

/** Resolves with the signal that asks a long-running command (serve, worker) to stop gracefully. */
export function untilStopSignal(): Promise<'SIGINT' | 'SIGTERM'> {
  return Promise.race([
    once(process, 'SIGINT').then(() => 'SIGINT' as const),
    once(process, 'SIGTERM').then(() => 'SIGTERM' as const),
  ]);
}
