export type { AccountRepository, Team, User } from './accounts.js';
export type { ApiKeyRecord, ApiKeyRepository, KeyOwner } from './api-keys.js';
export type { AppRepositoryStore } from './app-repositories.js';
export type { CredentialRepository } from './credentials.js';
export { type OpenStorageOptions, openStorage } from './database.js';
export { StoreError } from './errors.js';
export type { HookDecisionInput, HookDecisionRecord, HookDecisionRepository } from './hook-decisions.js';
export type { IdentityRepository } from './identities.js';
export type { InvitationRecord, InvitationRefusal, InvitationRepository } from './invitations.js';
export type { OAuthStateRepository } from './oauth-states.js';
export type { PasswordLinkRecord, PasswordLinkRepository } from './password-links.js';
export type { RegistryCacheRepository } from './registry-cache.js';
export type {
  ClaimedScan,
  ScanRecord,
  ScanRepository,
  ScanScope,
  ScanStatus,
  ScanViewer,
} from './scans.js';
export type { SessionOwner, SessionRecord, SessionRepository } from './sessions.js';
export type { Storage } from './storage.js';
export type { Membership, RemovalOutcome, TeamMember, TeamRepository, TeamRole } from './teams.js';
export { DatabaseUnavailableError } from './unavailable.js';
export type { CountResult, UsageAccountKey, UsageRepository } from './usage.js';
