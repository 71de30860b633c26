import type { Logger } from 'pino';
import type { HookCheckService } from '../../services/hook-checks.js';
import type { Principal } from '../../services/vocabulary.js';

/** What every tool of one request works with: the caller, and the services it adapts. */
export interface ToolContext {
  principal: Principal;
  hookChecks: HookCheckService;
  /** The service's public base URL, for configuration it hands out. */
  baseUrl: string;
  logger: Logger;
}
