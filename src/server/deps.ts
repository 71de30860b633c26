import type { Logger } from 'pino';
import type { AccountSecurityService } from '../services/account-security.js';
import type { ApiKeyService } from '../services/api-keys.js';
import type { AppWebhook } from '../services/app-a/webhook.js';
import type { CiRunService } from '../services/ci-runs.js';
import type { HookCheckService } from '../services/hook-checks.js';
import type { OAuthSignInService } from '../services/oauth-sign-in.js';
import type { OverviewService } from '../services/overview.js';
import type { PasswordLinkService } from '../services/password-links.js';
import type { PrincipalService } from '../services/principals.js';
import type { ScanService } from '../services/scans.js';
import type { SessionService } from '../services/sessions.js';
import type { SignInService } from '../services/sign-in.js';
import type { TeamService } from '../services/team.js';
import type { InvitationService } from '../services/team-invitations.js';
import type { Storage } from '../storage/index.js';
import type { BinarySource } from './binary-source.js';
import type { RateLimiters } from './rate-limits.js';

/** Everything the app needs, built by the composition root (cli/create-services.ts) and handed to createApp. */
export interface AppDeps {
  /** trustProxy: proxy hops in front; baseUrl: the public URL in handed-out configuration and CI files. */
  config: { trustProxy: number; baseUrl: string };
  logger: Logger;
  /** For the health check only: routes reach storage through services. */
  storage: Pick<Storage, 'ping'>;
  principals: PrincipalService;
  ciRuns: CiRunService;
  hookChecks: HookCheckService;
  signIn: SignInService;
  sessions: SessionService;
  oauthSignIn: OAuthSignInService;
  passwordLinks: PasswordLinkService;
  accountSecurity: AccountSecurityService;
  apiKeys: ApiKeyService;
  team: TeamService;
  invitations: InvitationService;
  overview: OverviewService;
  rateLimiters: RateLimiters;
  scans: ScanService;
  /** The GitHub application's webhook; absent when the application is not configured. */
  appWebhook?: AppWebhook;
  binary: BinarySource;
}
