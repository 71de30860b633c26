import { beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS, openTestDatabase, skipDialect, type TestDatabase } from '../../test/helpers/databases.js';
import { type KeyOwner, type Storage, StoreError, type UsageAccountKey } from './index.js';

const skipped = new Map(await Promise.all(DIALECTS.map(async (d) => [d, await skipDialect(d)] as const)));

async function expectStoreError(promise: Promise<unknown>, code: StoreError['code'], message: string) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreError);
  expect(error).toMatchObject({ code, message });
}

/** The billing account as the contract defines it: the team for a member, else the user. */
function accountOf(owner: KeyOwner): UsageAccountKey {
  return owner.team ? { kind: 'team', id: owner.team.id } : { kind: 'user', id: owner.user.id };
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipped.get(dialect))(`Storage on ${dialect}`, () => {
    let db: TestDatabase;
    let storage: Storage;
    let keys = 0;

    beforeEach(async () => {
      db = await openTestDatabase(dialect);
      storage = db.storage;
      return () => db.cleanup();
    });

    async function keyFor(email: string, prefix = `svc_k${String(++keys).padStart(7, '0')}`) {
      const user =
        (await storage.accounts.findUserByEmail(email)) ?? (await storage.accounts.createUser({ email }));
      const hash = `hash-${prefix}-${keys}`;
      const key = await storage.apiKeys.createApiKey({ userId: user.id, name: `key ${keys}`, prefix, hash });
      return { user, key, hash };
    }

    describe('users', () => {
      it('creates a user with a lowercased email and the free plan by default', async () => {
        const before = Date.now();
        const user = await storage.accounts.createUser({ email: '  Ada@Example.TEST ' });
        expect(user).toMatchObject({ email: 'ada@example.test', plan: 'free' });
        expect(user.id).toBeTypeOf('number');
        expect(user.createdAt).toBeInstanceOf(Date);
        expect(user.createdAt.getTime()).toBeGreaterThanOrEqual(before);
        expect(await storage.accounts.findUserByEmail('ADA@example.test')).toEqual(user);
        expect(await storage.accounts.findUserByEmail('nobody@example.test')).toBeNull();
      });

      it('refuses a duplicate email whatever its case', async () => {
        await storage.accounts.createUser({ email: 'ada@example.test', plan: 'paid' });
        await expectStoreError(
          storage.accounts.createUser({ email: 'ADA@Example.test' }),
          'duplicate',
          'user already exists: ada@example.test',
        );
      });

      it('sets the plan, and names an unknown user', async () => {
        await storage.accounts.createUser({ email: 'ada@example.test' });
        expect(await storage.accounts.setUserPlan('Ada@example.test', 'paid')).toMatchObject({
          plan: 'paid',
        });
        expect((await storage.accounts.findUserByEmail('ada@example.test'))?.plan).toBe('paid');
        await expectStoreError(
          storage.accounts.setUserPlan('a@b.test', 'paid'),
          'not-found',
          'user not found: a@b.test',
        );
      });
    });

    describe('teams', () => {
      it('creates a team with defaults and refuses a duplicate name', async () => {
        const team = await storage.accounts.createTeam({ name: 'core' });
        expect(team).toMatchObject({ name: 'core', plan: 'free', hookMode: 'block' });
        expect(team.createdAt).toBeInstanceOf(Date);
        expect(await storage.accounts.findTeamByName('core')).toEqual(team);
        expect(await storage.accounts.findTeamByName('nope')).toBeNull();
        await expectStoreError(
          storage.accounts.createTeam({ name: 'core' }),
          'duplicate',
          'team already exists: core',
        );
      });

      it('adds a member and moves them to another team', async () => {
        const user = await storage.accounts.createUser({ email: 'ada@example.test' });
        const core = await storage.accounts.createTeam({ name: 'core' });
        const infra = await storage.accounts.createTeam({ name: 'infra', plan: 'paid', hookMode: 'warn' });
        expect(await storage.accounts.findTeamOfUser(user.id)).toBeNull();
        await storage.accounts.addTeamMember('core', 'ADA@example.test');
        expect(await storage.accounts.findTeamOfUser(user.id)).toEqual(core);
        await storage.accounts.addTeamMember('core', 'ada@example.test');
        expect(await storage.accounts.findTeamOfUser(user.id)).toEqual(core);
        await storage.accounts.addTeamMember('infra', 'ada@example.test');
        expect(await storage.accounts.findTeamOfUser(user.id)).toEqual(infra);
      });

      it('names an unknown team or user', async () => {
        await storage.accounts.createUser({ email: 'ada@example.test' });
        await storage.accounts.createTeam({ name: 'core' });
        await expectStoreError(
          storage.accounts.addTeamMember('nope', 'ada@example.test'),
          'not-found',
          'team not found: nope',
        );
        await expectStoreError(
          storage.accounts.addTeamMember('core', 'a@b.test'),
          'not-found',
          'user not found: a@b.test',
        );
        await expectStoreError(
          storage.accounts.setTeamHookMode('nope', 'warn'),
          'not-found',
          'team not found: nope',
        );
      });

      it('sets the hook mode', async () => {
        await storage.accounts.createTeam({ name: 'core' });
        expect(await storage.accounts.setTeamHookMode('core', 'warn')).toMatchObject({ hookMode: 'warn' });
        expect((await storage.accounts.findTeamByName('core'))?.hookMode).toBe('warn');
      });

      it("finds a key's owner with the owner's team, or none", async () => {
        const member = await keyFor('member@example.test');
        const loner = await keyFor('loner@example.test');
        await storage.accounts.setUserPlan('loner@example.test', 'paid');
        await storage.accounts.createTeam({ name: 'core', plan: 'paid', hookMode: 'warn' });
        await storage.accounts.addTeamMember('core', 'member@example.test');

        const principal = await storage.apiKeys.findOwnerByKeyHash(member.hash);
        expect(principal?.user).toMatchObject({ email: 'member@example.test', plan: 'free' });
        expect(principal?.team).toMatchObject({ name: 'core', plan: 'paid', hookMode: 'warn' });
        expect(principal?.team?.createdAt).toBeInstanceOf(Date);

        const own = await storage.apiKeys.findOwnerByKeyHash(loner.hash);
        expect(own).toMatchObject({ team: null, user: { plan: 'paid' } });
      });
    });

    describe('api keys', () => {
      it('creates a key and finds its principal by hash', async () => {
        const { user, key, hash } = await keyFor('ada@example.test', 'svc_abcd1234');
        expect(key).toMatchObject({
          userId: user.id,
          prefix: 'svc_abcd1234',
          lastUsedAt: null,
          revokedAt: null,
        });
        expect(key.createdAt).toBeInstanceOf(Date);
        expect(await storage.apiKeys.findOwnerByKeyHash(hash)).toEqual({ user, key, team: null });
        expect(await storage.apiKeys.findOwnerByKeyHash('no-such-hash')).toBeNull();
      });

      it('refuses a key for an unknown user', async () => {
        const input = { userId: 999_999, name: 'x', prefix: 'svc_abcd1234', hash: 'h' };
        await expectStoreError(storage.apiKeys.createApiKey(input), 'not-found', 'user not found: id 999999');
      });

      it('revokes by prefix, case-sensitively, and counts only keys it revoked', async () => {
        const first = await keyFor('ada@example.test', 'svc_abcd1234');
        await keyFor('ada@example.test', 'svc_abcd5678');
        const other = await keyFor('bob@example.test', 'svc_zzzz0000');
        expect(await storage.apiKeys.revokeApiKeys('svc_ABCD')).toBe(0);
        expect(await storage.apiKeys.revokeApiKeys('')).toBe(0);
        expect(await storage.apiKeys.revokeApiKeys('svc_abcd')).toBe(2);
        expect(await storage.apiKeys.revokeApiKeys('svc_abcd')).toBe(0);
        expect(await storage.apiKeys.findOwnerByKeyHash(first.hash)).toBeNull();
        expect(await storage.apiKeys.findOwnerByKeyHash(other.hash)).not.toBeNull();
      });

      it('lists keys oldest first, revoked ones included', async () => {
        const a = await keyFor('ada@example.test', 'svc_aaaa0001');
        const b = await keyFor('ada@example.test', 'svc_bbbb0002');
        await keyFor('bob@example.test');
        await storage.apiKeys.revokeApiKeys('svc_aaaa0001');
        const list = await storage.apiKeys.listApiKeys(a.user.id);
        expect(list.map((k) => k.id)).toEqual([a.key.id, b.key.id]);
        expect(list[0]?.revokedAt).toBeInstanceOf(Date);
        expect(list[1]?.revokedAt).toBeNull();
        expect(await storage.apiKeys.listApiKeys(999_999)).toEqual([]);
      });

      it('records when a key was last used', async () => {
        const { key, hash } = await keyFor('ada@example.test');
        const at = new Date('2025-03-04T05:06:07.089Z');
        await storage.apiKeys.touchApiKey(key.id, at);
        expect((await storage.apiKeys.findOwnerByKeyHash(hash))?.key.lastUsedAt).toEqual(at);
        expect((await storage.apiKeys.listApiKeys(key.userId))[0]?.lastUsedAt).toEqual(at);
      });
    });

    describe('ci run usage', () => {
      const ada: UsageAccountKey = { kind: 'user', id: 1 };

      it('counts up to the limit, then refuses and reports the count', async () => {
        const results = [];
        for (let i = 0; i < 4; i++) results.push(await storage.usage.countCiRun(ada, '2025-01', 3));
        expect(results).toEqual([
          { counted: true, used: 1 },
          { counted: true, used: 2 },
          { counted: true, used: 3 },
          { counted: false, used: 3 },
        ]);
        expect(await storage.usage.ciRunsUsed(ada, '2025-01')).toBe(3);
        // A plan raised mid-month counts again at once.
        expect(await storage.usage.countCiRun(ada, '2025-01', 5)).toEqual({ counted: true, used: 4 });
      });

      it('keeps months and accounts apart', async () => {
        await storage.usage.countCiRun(ada, '2025-01', 10);
        await storage.usage.countCiRun(ada, '2025-01', 10);
        expect(await storage.usage.countCiRun(ada, '2025-02', 10)).toEqual({ counted: true, used: 1 });
        expect(await storage.usage.countCiRun({ kind: 'team', id: 1 }, '2025-01', 10)).toEqual({
          counted: true,
          used: 1,
        });
        expect(await storage.usage.ciRunsUsed(ada, '2025-01')).toBe(2);
        expect(await storage.usage.ciRunsUsed(ada, '2024-12')).toBe(0);
      });

      it('counts nothing against a limit of 0, and rejects a malformed month', async () => {
        expect(await storage.usage.countCiRun(ada, '2025-01', 0)).toEqual({ counted: false, used: 0 });
        expect(await storage.usage.ciRunsUsed(ada, '2025-01')).toBe(0);
        await expect(storage.usage.countCiRun(ada, '2025-1', 10)).rejects.toThrow('month must be YYYY-MM');
      });

      it("makes team members share the team's account", async () => {
        const one = await keyFor('one@example.test');
        const two = await keyFor('two@example.test');
        await storage.accounts.createTeam({ name: 'core' });
        await storage.accounts.addTeamMember('core', 'one@example.test');
        await storage.accounts.addTeamMember('core', 'two@example.test');
        const accounts = await Promise.all(
          [one.hash, two.hash].map(async (hash) =>
            accountOf((await storage.apiKeys.findOwnerByKeyHash(hash))!),
          ),
        );
        expect(accounts[0]).toEqual(accounts[1]);
        expect(accounts[0]?.kind).toBe('team');
        expect(await storage.usage.countCiRun(accounts[0]!, '2025-01', 2)).toMatchObject({
          counted: true,
          used: 1,
        });
        expect(await storage.usage.countCiRun(accounts[1]!, '2025-01', 2)).toMatchObject({
          counted: true,
          used: 2,
        });
        expect(await storage.usage.countCiRun(accounts[0]!, '2025-01', 2)).toEqual({
          counted: false,
          used: 2,
        });
      });

      it('counts exactly the limit when 20 calls race for 10 runs', async () => {
        // Two Storages: on SQLite two connections to one file, on PostgreSQL two pools of up to ten
        // connections each, so the calls really overlap in the database.
        const stores = [storage, await db.open()];
        for (const month of ['2025-01', '2025-02', '2025-03']) {
          const results = await Promise.all(
            Array.from({ length: 20 }, (_, i) => stores[i % 2]!.usage.countCiRun(ada, month, 10)),
          );
          const counted = results.filter((r) => r.counted);
          expect(counted).toHaveLength(10);
          // Each counted call saw a different count: no two read the same row before writing.
          expect(counted.map((r) => r.used).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
          expect(results.filter((r) => !r.counted).every((r) => r.used === 10)).toBe(true);
          expect(await storage.usage.ciRunsUsed(ada, month)).toBe(10);
        }
      });
    });

    describe('migrations', () => {
      it('opening an existing database again keeps its data', async () => {
        const user = await storage.accounts.createUser({ email: 'ada@example.test' });
        await storage.close();
        const again = await db.open();
        expect(await again.accounts.findUserByEmail('ada@example.test')).toEqual(user);
        const third = await db.open();
        expect(await third.accounts.findUserByEmail('ada@example.test')).toEqual(user);
      });
    });
  });
}
