import { setPriority } from 'node:os';

/**
 * Scans are background work: at a lower CPU priority (inherited by the gits they start) the service's
 * requests win the CPU when both want it (npm run bench:scans: /api/account p99 while scans run).
 */
export const SCAN_NICENESS = 19;

export function lowerPriority(pid: number | undefined): void {
  try {
    if (pid !== undefined) setPriority(pid, SCAN_NICENESS);
  } catch {
    // the process already ended, or the platform refuses: it runs at normal priority
  }
}
