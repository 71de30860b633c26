import type { Kysely } from 'kysely';
import type { RegistryCacheRepository } from '../registry-cache.js';
import type { Database } from '../schema.js';

export class KyselyRegistryCache implements RegistryCacheRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async cacheGet(key: string, at: Date): Promise<string | null> {
    const row = await this.db
      .selectFrom('registry_cache')
      .select('value')
      .where('key', '=', key)
      .where('expires_at', '>', at.toISOString())
      .executeTakeFirst();
    return row?.value ?? null;
  }

  async cachePut(key: string, value: string, expiresAt: Date): Promise<void> {
    await this.db
      .insertInto('registry_cache')
      .values({ key, value, expires_at: expiresAt.toISOString() })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value, expires_at: expiresAt.toISOString() }))
      .execute();
  }
}
