import type { Kysely } from 'kysely';
import type { PasswordLinkRecord, PasswordLinkRepository } from '../password-links.js';
import type { Database } from '../schema.js';
import { toDate, toUser } from './rows.js';

export class KyselyPasswordLinks implements PasswordLinkRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async savePasswordLink(input: {
    tokenHash: string;
    userId: number;
    at: Date;
    expiresAt: Date;
  }): Promise<void> {
    const values = {
      token_hash: input.tokenHash,
      created_at: input.at.toISOString(),
      expires_at: input.expiresAt.toISOString(),
    };
    // One row per user: the new link's hash overwrites the old one, which stops working at once.
    await this.db
      .insertInto('password_links')
      .values({ user_id: input.userId, ...values })
      .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
      .execute();
  }

  async findPasswordLink(tokenHash: string): Promise<PasswordLinkRecord | null> {
    const row = await this.db
      .selectFrom('password_links as l')
      .innerJoin('users as u', 'u.id', 'l.user_id')
      .select([
        'u.id',
        'u.email',
        'u.plan',
        'u.created_at',
        'l.created_at as link_created_at',
        'l.expires_at',
      ])
      .where('l.token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (!row) return null;
    return {
      user: toUser(row),
      createdAt: toDate(row.link_created_at),
      expiresAt: toDate(row.expires_at),
    };
  }

  async takePasswordLink(tokenHash: string, at: Date): Promise<number | null> {
    // DELETE ... RETURNING: of two posts racing with one link, exactly one gets the row.
    const row = await this.db
      .deleteFrom('password_links')
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', at.toISOString())
      .returning('user_id')
      .executeTakeFirst();
    return row?.user_id ?? null;
  }

  async deletePasswordLinksExpiredBefore(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('password_links')
      .where('expires_at', '<', before.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
