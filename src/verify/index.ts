/** Credential checks: is a found secret still live? (README: "Is it still live?") */
export type { ProviderUrls } from './check.js';
export {
  CHECK_CONCURRENCY,
  createVerifier,
  DEFAULT_CHECK_TIMEOUT_MS,
  MAX_CREDENTIALS_PER_SCAN,
  type VerifierOptions,
} from './verifier.js';
