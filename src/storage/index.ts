export { type OpenStoreOptions, openStore } from './database.js';
export {
  type ApiKeyRecord,
  type CountResult,
  type HookMode,
  type Plan,
  type Principal,
  type Store,
  StoreError,
  type Team,
  type UsageAccount,
  type User,
  usageAccountOf,
} from './store.js';
export { DatabaseUnavailableError } from './unavailable.js';
