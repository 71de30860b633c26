import type { Kysely } from 'kysely';
import type { OAuthStateRepository } from '../oauth-states.js';
import type { Database } from '../schema.js';
import { toDate } from './rows.js';

export class KyselyOAuthStates implements OAuthStateRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async saveOAuthState(input: {
    stateHash: string;
    verifier: string;
    at: Date;
    userId?: number | null;
  }): Promise<void> {
    await this.db
      .insertInto('oauth_states')
      .values({
        state_hash: input.stateHash,
        verifier: input.verifier,
        created_at: input.at.toISOString(),
        user_id: input.userId ?? null,
      })
      .execute();
  }

  async takeOAuthState(
    stateHash: string,
  ): Promise<{ verifier: string; createdAt: Date; userId: number | null } | null> {
    // DELETE ... RETURNING: of two callbacks racing with one state, exactly one gets the row.
    const row = await this.db
      .deleteFrom('oauth_states')
      .where('state_hash', '=', stateHash)
      .returning(['verifier', 'created_at', 'user_id'])
      .executeTakeFirst();
    return row ? { verifier: row.verifier, createdAt: toDate(row.created_at), userId: row.user_id } : null;
  }

  async deleteOAuthStatesBefore(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('oauth_states')
      .where('created_at', '<', before.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
