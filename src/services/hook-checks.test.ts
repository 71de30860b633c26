import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../test/helpers/databases.js';
import { FakeRegistries } from '../../test/helpers/fake-registries.js';
import { createRiskServices } from '../cli/create-services.js';
import { createHookCheckService } from './hook-checks.js';
import type { Principal } from './vocabulary.js';

function principalOf(team: Principal['team']): Principal {
  const user = { id: 1, email: 'dev@example.test', plan: 'free' as const, createdAt: new Date() };
  const key = {
    id: 1,
    userId: 1,
    name: 'k',
    prefix: 'svc_abcdefgh',
    createdAt: new Date(),
    lastUsedAt: null,
    revokedAt: null,
  };
  return { user, key, team, plan: team?.plan ?? 'free' };
}

describe('hook checks: which mode applies, and what is remembered', () => {
  let db: TestDatabase;
  let registries: FakeRegistries;
  beforeAll(async () => {
    db = await openTestDatabase('sqlite');
    registries = await FakeRegistries.start();
    registries.addPackage('npm', 'express', { versions: { '4.0.0': new Date('2015-01-01') } });
  });
  afterAll(async () => {
    await registries.stop();
    await db.cleanup();
  });

  const team = (hookMode: 'block' | 'warn') => ({
    id: 7,
    name: 't',
    plan: 'paid' as const,
    hookMode,
    createdAt: new Date(),
  });

  it.each([
    [null, undefined, 'block'],
    [null, 'warn', 'warn'],
    [null, 'block', 'block'],
    ['block', 'warn', 'block'],
    ['warn', undefined, 'warn'],
    ['warn', 'block', 'warn'],
  ] as const)("a member of a team in %s mode asking for %s gets %s: the team's mode always wins", (teamMode, asked, expected) => {
    const service = createHookCheckService({
      risk: createRiskServices({ registries: registries.urls }),
      now: () => new Date(),
    });
    const principal = principalOf(teamMode === null ? null : team(teamMode));
    expect(service.modeFor(principal, asked)).toBe(expected);
    if (teamMode === null) expect(service.modeFor(null, asked)).toBe(expected);
  });

  it("keeps a hook call's install decision (packages and reasons, never the line), and nothing of other calls", async () => {
    const user = await db.storage.accounts.createUser({ email: 'dev@example.test' });
    const principal = { ...principalOf(null), user };
    const service = createHookCheckService({
      risk: createRiskServices({ registries: registries.urls }),
      decisions: db.storage.hookDecisions,
      now: () => new Date('2026-03-01T10:00:00Z'),
    });
    await service.check(principal, { command: 'ls -la', agent: 'a' });
    const decided = await service.check(principal, {
      command: 'TOKEN=abc123 npm install express@4',
      agent: 'b',
    });
    expect(decided).toMatchObject({
      decision: 'allow',
      mode: 'block',
      installs: [{ name: 'express', version: '4' }],
    });
    await service.check(principal, { command: 'npm install express' }); // not a hook call: not kept
    await service.check(null, { command: 'npm install express', agent: 'a' }); // nobody to keep it for
    const kept = await db.storage.hookDecisions.listHookDecisions(user.id, 10);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({
      agent: 'b',
      mode: 'block',
      decision: 'allow',
      packages: [{ ecosystem: 'npm', name: 'express', version: '4' }],
    });
    expect(JSON.stringify(kept)).not.toContain('abc123');
  });
});
