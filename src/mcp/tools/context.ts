import type { Logger } from 'pino';
import type { HookCheckService } from '../../services/hook-checks.js';
import type { ScanService } from '../../services/scans.js';
import type { Principal } from '../../services/vocabulary.js';

/** What every tool of one request works with: the caller, and the services it adapts. */
export interface ToolContext {
  principal: Principal;
  hookChecks: HookCheckService;
  scans: ScanService;
  /**
   * Counts a scan start against the caller's IP's 5 a minute (the dashboard's limit); throws a
   * domain error saying when to retry past it.
   */
  allowScanStart(): Promise<void>;
  /** The service's public base URL, for configuration it hands out. */
  baseUrl: string;
  logger: Logger;
}
