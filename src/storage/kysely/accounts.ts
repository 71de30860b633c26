import type { Kysely } from 'kysely';
import type { AccountRepository, Team, User } from '../accounts.js';
import { StoreError } from '../errors.js';
import type { Database } from '../schema.js';
import { normalizeEmail, nowIso, toTeam, toUser } from './rows.js';

export class KyselyAccounts implements AccountRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async createUser(input: { email: string; plan?: User['plan'] }): Promise<User> {
    const email = normalizeEmail(input.email);
    // ON CONFLICT DO NOTHING instead of catching the unique violation: the two drivers report it
    // with different error shapes, and a racing duplicate still ends here as "no row".
    const row = await this.db
      .insertInto('users')
      .values({ email, plan: input.plan ?? 'free', created_at: nowIso() })
      .onConflict((oc) => oc.column('email').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new StoreError('duplicate', `user already exists: ${email}`);
    return toUser(row);
  }

  async findUserByEmail(email: string): Promise<User | null> {
    const row = await this.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', normalizeEmail(email))
      .executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async setUserPlan(email: string, plan: User['plan']): Promise<User> {
    const row = await this.db
      .updateTable('users')
      .set({ plan })
      .where('email', '=', normalizeEmail(email))
      .returningAll()
      .executeTakeFirst();
    if (!row) throw userNotFound(email);
    return toUser(row);
  }

  async createTeam(input: { name: string; plan?: Team['plan']; hookMode?: Team['hookMode'] }): Promise<Team> {
    const row = await this.db
      .insertInto('teams')
      .values({
        name: input.name,
        plan: input.plan ?? 'free',
        hook_mode: input.hookMode ?? 'block',
        created_at: nowIso(),
      })
      .onConflict((oc) => oc.column('name').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new StoreError('duplicate', `team already exists: ${input.name}`);
    return toTeam(row);
  }

  async findTeamByName(name: string): Promise<Team | null> {
    const row = await this.db.selectFrom('teams').selectAll().where('name', '=', name).executeTakeFirst();
    return row ? toTeam(row) : null;
  }

  async addTeamMember(teamName: string, email: string, role: 'owner' | 'member' = 'member'): Promise<void> {
    const team = await this.findTeamByName(teamName);
    if (!team) throw teamNotFound(teamName);
    const user = await this.findUserByEmail(email);
    if (!user) throw userNotFound(email);
    // user_id is the key, so one upsert both adds and moves: there is never a moment with two teams.
    await this.db
      .insertInto('team_members')
      .values({ user_id: user.id, team_id: team.id, created_at: nowIso(), role })
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet({
          team_id: (eb) => eb.ref('excluded.team_id'),
          created_at: (eb) => eb.ref('excluded.created_at'),
          role: (eb) => eb.ref('excluded.role'),
        }),
      )
      .execute();
  }

  async setTeamHookMode(teamName: string, mode: Team['hookMode']): Promise<Team> {
    const row = await this.db
      .updateTable('teams')
      .set({ hook_mode: mode, hook_mode_set_by: null, hook_mode_set_at: nowIso() })
      .where('name', '=', teamName)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw teamNotFound(teamName);
    return toTeam(row);
  }

  async findTeamOfUser(userId: number): Promise<Team | null> {
    const row = await this.db
      .selectFrom('team_members')
      .innerJoin('teams', 'teams.id', 'team_members.team_id')
      .selectAll('teams')
      .where('team_members.user_id', '=', userId)
      .executeTakeFirst();
    return row ? toTeam(row) : null;
  }
}

function userNotFound(email: string): StoreError {
  return new StoreError('not-found', `user not found: ${normalizeEmail(email)}`);
}

function teamNotFound(name: string): StoreError {
  return new StoreError('not-found', `team not found: ${name}`);
}
