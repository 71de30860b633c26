import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, openTestDatabase, skipDialect, type TestDatabase } from '../../test/helpers/databases.js';

for (const dialect of DIALECTS) {
  describe.skipIf(await skipDialect(dialect))(`hook decisions and the registry cache on ${dialect}`, () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await openTestDatabase(dialect);
    });
    afterAll(() => db.cleanup());

    it('records a decision with its packages and reasons, newest first', async () => {
      const user = await db.storage.accounts.createUser({ email: 'hooks@example.test' });
      const at = new Date('2026-03-01T10:00:00Z');
      const packages = [{ ecosystem: 'npm', name: 'lodahs', version: null }];
      await db.storage.hookDecisions.recordHookDecision({
        userId: user.id,
        agent: 'a',
        mode: 'block',
        decision: 'allow',
        packages: [],
        reasons: [],
        at,
      });
      await db.storage.hookDecisions.recordHookDecision({
        userId: user.id,
        agent: 'b',
        mode: 'warn',
        decision: 'ask',
        packages,
        reasons: ['`lodahs` looks like `lodash`; did you mean it?'],
        at,
      });
      const [latest, first] = await db.storage.hookDecisions.listHookDecisions(user.id, 10);
      expect(latest).toMatchObject({ agent: 'b', mode: 'warn', decision: 'ask', packages, at });
      expect(latest!.reasons).toEqual(['`lodahs` looks like `lodash`; did you mean it?']);
      expect(first!.decision).toBe('allow');
    });

    it('caches values until they expire, and overwrites them', async () => {
      const now = new Date('2026-03-01T10:00:00Z');
      const later = new Date(now.getTime() + 60_000);
      await db.storage.registryCache.cachePut('npm:lodash', '{"exists":true}', later);
      expect(await db.storage.registryCache.cacheGet('npm:lodash', now)).toBe('{"exists":true}');
      expect(await db.storage.registryCache.cacheGet('npm:lodash', new Date(later.getTime() + 1))).toBeNull();
      await db.storage.registryCache.cachePut(
        'npm:lodash',
        '{"exists":false}',
        new Date(later.getTime() + 60_000),
      );
      expect(await db.storage.registryCache.cacheGet('npm:lodash', later)).toBe('{"exists":false}');
      expect(await db.storage.registryCache.cacheGet('npm:missing', now)).toBeNull();
    });
  });
}
