import type { Migration, MigrationProvider } from 'kysely';
import * as initial from './001-initial.js';
import * as hooks from './002-hooks.js';

/**
 * Migrations live in code rather than in files read at run time, so the bundled single executable
 * carries them. Names sort in the order they run; never rename or edit one that has shipped.
 */
const MIGRATIONS: Record<string, Migration> = {
  '001-initial': initial,
  '002-hooks': hooks,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
