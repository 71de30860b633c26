import type { Migration, MigrationProvider } from 'kysely';
import * as initial from './001-initial.js';
import * as hooks from './002-hooks.js';
import * as accountsWeb from './003-accounts-web.js';
import * as scans from './004-scans.js';
import * as appA from './005-app-a.js';
import * as oauthLink from './006-oauth-link.js';
import * as passwordLinks from './007-password-links.js';
import * as teamInvitations from './008-team-invitations.js';
import * as scanScope from './009-scan-scope.js';

/**
 * Migrations live in code rather than in files read at run time, so the bundled single executable
 * carries them. Names sort in the order they run; never rename or edit one that has shipped. A
 * migration that arrives with a lower name than one already run (003 after 004) still runs: the
 * migrator allows unordered migrations, so every migration must not depend on a later one.
 */
const MIGRATIONS: Record<string, Migration> = {
  '001-initial': initial,
  '002-hooks': hooks,
  '003-accounts-web': accountsWeb,
  // Built in parallel with 003; unordered migrations (database.ts) let either land first.
  '004-scans': scans,
  '005-app-a': appA,
  '006-oauth-link': oauthLink,
  '007-password-links': passwordLinks,
  '008-team-invitations': teamInvitations,
  '009-scan-scope': scanScope,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
