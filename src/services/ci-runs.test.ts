import { describe, expect, it } from 'vitest';
import type { IdentityServices, Visibility } from '../auth/ci-identity/index.js';
import type { UsageAccountKey, UsageRepository } from '../storage/index.js';
import { createCiRunService, type MonthlyCiRuns } from './ci-runs.js';
import { DomainError } from './errors.js';
import { effectivePlan, isHookMode, isPlan, type Principal, usageAccountOf } from './vocabulary.js';

/**
 * The plan rules of CI runs, on their own: identity verification and the atomic counter have their own
 * tests (oidc.test.ts, ci-identity.test.ts, store.test.ts); here a GitLab project of a chosen
 * visibility and an in-memory counter with the storage contract stand in for them.
 */
const identity = (visibility: Visibility | null): IdentityServices => ({
  verifyCodehostA: async () => ({ repository: 'acme/app', repository_visibility: visibility ?? undefined }),
  verifyCodehostB: async () => ({ project_path: 'group/app' }),
  projectVisibility: async () => visibility,
});

class MemoryUsage implements UsageRepository {
  readonly counts = new Map<string, number>();
  readonly released: string[] = [];
  private key = (a: UsageAccountKey, month: string) => `${a.kind}:${a.id}:${month}`;
  async countCiRun(a: UsageAccountKey, month: string, limit: number) {
    const used = this.counts.get(this.key(a, month)) ?? 0;
    if (used >= limit) return { counted: false as const, used };
    this.counts.set(this.key(a, month), used + 1);
    return { counted: true as const, used: used + 1 };
  }
  async ciRunsUsed(a: UsageAccountKey, month: string) {
    return this.counts.get(this.key(a, month)) ?? 0;
  }
  async releaseCiRun(a: UsageAccountKey, month: string) {
    this.released.push(this.key(a, month));
    this.counts.set(this.key(a, month), Math.max(0, (this.counts.get(this.key(a, month)) ?? 0) - 1));
  }
}

const LIMITS: MonthlyCiRuns = { free: 2, paid: 3 };
const JAN_31_LAST_SECOND = new Date('2026-01-31T23:59:59Z');

function principal(
  plan: 'free' | 'paid',
  team: { id: number; plan: 'free' | 'paid' } | null = null,
): Principal {
  const createdAt = new Date(0);
  return {
    user: { id: 1, email: 'ci@example.test', plan, createdAt },
    key: {
      id: 1,
      userId: 1,
      name: 'ci',
      prefix: 'svc_abcdefgh',
      createdAt,
      lastUsedAt: null,
      revokedAt: null,
    },
    team: team && { ...team, name: 't', hookMode: 'block', createdAt },
    plan: team?.plan ?? plan,
  };
}

const service = (visibility: Visibility | null, usage = new MemoryUsage(), now = JAN_31_LAST_SECOND) =>
  createCiRunService({ identity: identity(visibility), usage, monthlyCiRuns: LIMITS, now: () => now });

const tokenB = {
  codehostAToken: undefined,
  codehostBToken: 't',
  codehostbProject: undefined,
  repo: undefined,
};

async function refusal(run: Promise<unknown>): Promise<DomainError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe('authorize: the Free plan scans proven-public repositories only', () => {
  it.each<[Visibility | null, 'free' | 'paid', string | null]>([
    ['public', 'free', null],
    ['public', 'paid', null],
    ['private', 'paid', null],
    ['internal', 'paid', null],
    [null, 'paid', null],
    ['private', 'free', 'group/app is private: the Free plan scans public repositories only'],
    ['internal', 'free', 'group/app is internal: the Free plan scans public repositories only'],
    [
      null,
      'free',
      'the Free plan scans public repositories only, and group/app could not be confirmed public',
    ],
  ])('a %s project on the %s plan: %s', async (visibility, plan, refused) => {
    const run = service(visibility).authorize(principal(plan), tokenB);
    if (refused === null) {
      expect(await run).toEqual({ platform: 'b', repository: 'group/app', visibility, proven: true });
    } else {
      const error = await refusal(run);
      expect([error.code, error.message]).toEqual(['plan-required', refused]);
    }
  });
});

describe('count: the monthly allowance of the billing account', () => {
  it('counts up to the plan limit, then refuses until next month, saying when', async () => {
    const usage = new MemoryUsage();
    const ci = service('public', usage);
    const first = await ci.count(principal('free'));
    expect([first.used, first.limit, first.remaining]).toEqual([1, 2, 1]);
    const second = await ci.count(principal('free'));
    expect([second.used, second.limit, second.remaining]).toEqual([2, 2, 0]);
    const error = await refusal(ci.count(principal('free')));
    expect(error.code).toBe('quota-exhausted');
    expect(error.message).toBe('monthly CI runs used up: 2 on the Free plan for 2026-01');
    // One second to midnight UTC, when February's allowance starts.
    expect(error.retryAfterSeconds).toBe(1);
    expect(usage.counts.get('user:1:2026-01')).toBe(2);
  });

  it("a paid plan's limit and wording; a team member counts against the team", async () => {
    const usage = new MemoryUsage();
    const ci = service('public', usage, new Date('2026-03-01T00:00:00Z'));
    const member = principal('free', { id: 7, plan: 'paid' });
    for (let i = 0; i < LIMITS.paid; i++) await ci.count(member);
    const error = await refusal(ci.count(member));
    expect(error.message).toBe('monthly CI runs used up: 3 on the paid plan for 2026-03');
    expect(error.retryAfterSeconds).toBe(31 * 86_400);
    expect([...usage.counts]).toEqual([['team:7:2026-03', 3]]);
  });

  it('never reports fewer than zero remaining', async () => {
    // A counter that went over (a limit lowered mid-month) still reports 0 remaining, not -2.
    const usage = new MemoryUsage();
    usage.countCiRun = async () => ({ counted: true, used: LIMITS.free + 2 });
    const counted = await service('public', usage).count(principal('free'));
    expect(counted.remaining).toBe(0);
  });

  it('gives a run back in the month it was counted in', async () => {
    const usage = new MemoryUsage();
    let now = JAN_31_LAST_SECOND;
    const ci = createCiRunService({
      identity: identity('public'),
      usage,
      monthlyCiRuns: LIMITS,
      now: () => now,
    });
    const counted = await ci.count(principal('free'));
    now = new Date('2026-02-01T00:00:01Z'); // the download ended after midnight
    await counted.release();
    expect(usage.released).toEqual(['user:1:2026-01']);
    expect(usage.counts.get('user:1:2026-01')).toBe(0);
  });
});

describe('usage: this month of the billing account', () => {
  it.each([
    ['a user on their own', principal('paid'), 'user:1', LIMITS.paid],
    ['a team member', principal('paid', { id: 7, plan: 'free' }), 'team:7', LIMITS.free],
  ] as const)('%s', async (_, who, account, limit) => {
    const usage = new MemoryUsage();
    usage.counts.set(`${account}:2026-01`, 1);
    usage.counts.set(`${account}:2025-12`, 5);
    expect(await service('public', usage).usage(who)).toEqual({ month: '2026-01', used: 1, limit });
  });
});

describe('the vocabulary', () => {
  it.each([
    ['free', true],
    ['paid', true],
    ['gold', false],
    ['', false],
    ['Free', false],
  ])('isPlan(%j) is %s', (value, expected) => {
    expect(isPlan(value)).toBe(expected);
  });

  it.each([
    ['block', true],
    ['warn', true],
    ['allow', false],
    ['', false],
  ])('isHookMode(%j) is %s', (value, expected) => {
    expect(isHookMode(value)).toBe(expected);
  });

  it("a team member's plan and account are the team's; anyone else's their own", () => {
    expect(effectivePlan({ plan: 'free' }, { plan: 'paid' })).toBe('paid');
    expect(effectivePlan({ plan: 'paid' }, { plan: 'free' })).toBe('free');
    expect(effectivePlan({ plan: 'paid' }, null)).toBe('paid');
    expect(usageAccountOf({ id: 1 }, { id: 7 })).toEqual({ kind: 'team', id: 7 });
    expect(usageAccountOf({ id: 1 }, null)).toEqual({ kind: 'user', id: 1 });
  });
});
