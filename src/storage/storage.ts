import type { AccountRepository } from './accounts.js';
import type { ApiKeyRepository } from './api-keys.js';
import type { AppRepositoryStore } from './app-repositories.js';
import type { CredentialRepository } from './credentials.js';
import type { HookDecisionRepository } from './hook-decisions.js';
import type { IdentityRepository } from './identities.js';
import type { InvitationRepository } from './invitations.js';
import type { OAuthStateRepository } from './oauth-states.js';
import type { PasswordLinkRepository } from './password-links.js';
import type { RegistryCacheRepository } from './registry-cache.js';
import type { ScanRepository } from './scans.js';
import type { SessionRepository } from './sessions.js';
import type { TeamRepository } from './teams.js';
import type { UsageRepository } from './usage.js';

/**
 * The service's storage: one small repository per concern, each implemented once over Kysely for
 * SQLite and PostgreSQL (the only place with SQL), all on one database connection or pool.
 */
export interface Storage {
  accounts: AccountRepository;
  apiKeys: ApiKeyRepository;
  usage: UsageRepository;
  hookDecisions: HookDecisionRepository;
  registryCache: RegistryCacheRepository;
  scans: ScanRepository;
  appRepositories: AppRepositoryStore;
  credentials: CredentialRepository;
  identities: IdentityRepository;
  sessions: SessionRepository;
  oauthStates: OAuthStateRepository;
  teams: TeamRepository;
  invitations: InvitationRepository;
  passwordLinks: PasswordLinkRepository;
  /** One round trip; throws DatabaseUnavailableError when the database cannot answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
