import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { RiskServices } from '../hooks/risk/assess.js';
import type { Store } from '../storage/index.js';
import type { BinarySource } from './binary-source.js';
import type { IdentityServices } from './ci-identity.js';
import type { RateLimiters } from './rate-limits.js';

/** Everything the app needs, built by the entry point (or a test) and handed to createApp. */
export interface AppDeps {
  config: Pick<Readonly<Config>, 'trustProxy' | 'monthlyCiRuns'>;
  store: Store;
  rateLimiters: RateLimiters;
  logger: Logger;
  identity: IdentityServices;
  binary: BinarySource;
  /** Registries, OSV and the shared cache the hook endpoints judge packages with. */
  hooks: RiskServices;
  /** The clock; tests move it across months. */
  now?: () => Date;
}
