import type { Kysely } from 'kysely';
import type { User } from '../accounts.js';
import { StoreError } from '../errors.js';
import type { IdentityRepository } from '../identities.js';
import type { Database } from '../schema.js';
import { nowIso, toUser } from './rows.js';

export class KyselyIdentities implements IdentityRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async findUserByIdentity(provider: string, subject: string): Promise<User | null> {
    const row = await this.db
      .selectFrom('identities as i')
      .innerJoin('users as u', 'u.id', 'i.user_id')
      .select(['u.id', 'u.email', 'u.plan', 'u.created_at'])
      .where('i.provider', '=', provider)
      .where('i.subject', '=', subject)
      .executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async hasIdentity(userId: number, provider: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('identities')
      .select('subject')
      .where('user_id', '=', userId)
      .where('provider', '=', provider)
      .executeTakeFirst();
    return row !== undefined;
  }

  async linkIdentity(input: { provider: string; subject: string; userId: number }): Promise<void> {
    const row = await this.db
      .insertInto('identities')
      .values({
        provider: input.provider,
        subject: input.subject,
        user_id: input.userId,
        created_at: nowIso(),
      })
      .onConflict((oc) => oc.columns(['provider', 'subject']).doNothing())
      .returning('user_id')
      .executeTakeFirst();
    if (!row) throw new StoreError('duplicate', `identity already linked: ${input.provider}`);
  }
}
