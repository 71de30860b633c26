import type { Kysely } from 'kysely';
import type { AppRepositoryStore } from '../app-repositories.js';
import type { Database } from '../schema.js';

const key = (repository: string) => repository.toLowerCase();

export class KyselyAppRepositories implements AppRepositoryStore {
  constructor(private readonly db: Kysely<Database>) {}

  async addRepositories(installationId: number, repositories: readonly string[], at: Date): Promise<void> {
    if (repositories.length === 0) return;
    await this.db
      .insertInto('app_repositories')
      .values(
        repositories.map((repository) => ({
          repository: key(repository),
          installation_id: installationId,
          added_at: at.toISOString(),
        })),
      )
      .onConflict((oc) => oc.column('repository').doUpdateSet({ installation_id: installationId }))
      .execute();
  }

  async removeRepositories(installationId: number, repositories: readonly string[]): Promise<void> {
    if (repositories.length === 0) return;
    await this.db
      .deleteFrom('app_repositories')
      .where('installation_id', '=', installationId)
      .where('repository', 'in', repositories.map(key))
      .execute();
  }

  async removeInstallation(installationId: number): Promise<void> {
    await this.db.deleteFrom('app_repositories').where('installation_id', '=', installationId).execute();
  }

  async installationOf(repository: string): Promise<number | null> {
    const row = await this.db
      .selectFrom('app_repositories')
      .select('installation_id')
      .where('repository', '=', key(repository))
      .executeTakeFirst();
    // PostgreSQL answers a bigint as a string.
    return row === undefined ? null : Number(row.installation_id);
  }
}
