export type { AccountRepository, Team, User } from './accounts.js';
export type { ApiKeyRecord, ApiKeyRepository, KeyOwner } from './api-keys.js';
export { type OpenStorageOptions, openStorage } from './database.js';
export { StoreError } from './errors.js';
export type { HookDecisionInput, HookDecisionRecord, HookDecisionRepository } from './hook-decisions.js';
export type { RegistryCacheRepository } from './registry-cache.js';
export type { Storage } from './storage.js';
export { DatabaseUnavailableError } from './unavailable.js';
export type { CountResult, UsageAccountKey, UsageRepository } from './usage.js';
