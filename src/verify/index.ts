/** Credential checks (spec 3): is a found secret still live? */
export type { ProviderUrls } from './check.js';
export {
  CHECK_CONCURRENCY,
  createVerifier,
  DEFAULT_CHECK_TIMEOUT_MS,
  MAX_CREDENTIALS_PER_SCAN,
  type VerifierOptions,
} from './verifier.js';
