import type { Kysely } from 'kysely';
import type { User } from '../accounts.js';
import type { CredentialRepository } from '../credentials.js';
import { StoreError } from '../errors.js';
import type { Database } from '../schema.js';
import { normalizeEmail, nowIso, toUser } from './rows.js';

export class KyselyCredentials implements CredentialRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async createUserWithPassword(input: { email: string; passwordHash: string }): Promise<User> {
    const email = normalizeEmail(input.email);
    const row = await this.db
      .insertInto('users')
      .values({ email, plan: 'free', created_at: nowIso(), password_hash: input.passwordHash })
      .onConflict((oc) => oc.column('email').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new StoreError('duplicate', `user already exists: ${email}`);
    return toUser(row);
  }

  async findPasswordByEmail(email: string): Promise<{ user: User; passwordHash: string | null } | null> {
    const row = await this.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', normalizeEmail(email))
      .executeTakeFirst();
    return row ? { user: toUser(row), passwordHash: row.password_hash } : null;
  }

  async findPasswordByUserId(userId: number): Promise<{ user: User; passwordHash: string | null } | null> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    return row ? { user: toUser(row), passwordHash: row.password_hash } : null;
  }

  async setPasswordHash(userId: number, passwordHash: string): Promise<void> {
    const result = await this.db
      .updateTable('users')
      .set({ password_hash: passwordHash })
      .where('id', '=', userId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new StoreError('not-found', `user not found: ${userId}`);
  }
}
