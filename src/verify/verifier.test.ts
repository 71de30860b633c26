import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Behavior, FakeProviders } from '../../test/helpers/fake-providers.js';
import {
  fakeChatToken,
  fakeCloudKeyId,
  fakeCodehostToken,
  fakeFineGrainedPat,
  fakePaymentKey,
  fakeWebApiKey,
} from '../../test/helpers/fake-secrets.js';
import type { Finding, Location, RuleId } from '../scanner/index.js';
import { createVerifier, DEFAULT_CHECK_TIMEOUT_MS, MAX_CREDENTIALS_PER_SCAN } from './index.js';

let providers: FakeProviders;
beforeAll(async () => {
  providers = await FakeProviders.start();
});
afterAll(() => providers.stop());
afterEach(() => {
  providers.requests.length = 0;
  vi.restoreAllMocks();
});

/** Findings held with their secrets, as the scanner would hand them to the verifier. */
function findings(items: { ruleId: RuleId; secret: string; location?: Location; commit?: string }[]) {
  const secrets = new Map<Finding, string>();
  for (const [i, item] of items.entries()) {
    const commit = item.commit ?? `${String(i).padStart(12, '0')}${'a'.repeat(28)}`;
    const finding: Finding = {
      ruleId: item.ruleId,
      commit,
      path: 'src/app.ts',
      line: i + 1,
      location: item.location ?? 'code',
      maskedValue: `${item.secret.slice(0, 4)}****************`,
      verification: 'unchecked',
      fingerprint: `${item.ruleId}:${commit.slice(0, 12)}:src/app.ts:${i + 1}`,
      ignored: false,
      author: 'a',
      date: '2024-01-01T00:00:00Z',
    };
    secrets.set(finding, item.secret);
  }
  return { list: [...secrets.keys()], secretOf: (f: Finding) => secrets.get(f) };
}

async function verifyOne(ruleId: RuleId, secret: string, behavior: Behavior, timeoutMs = 300) {
  providers.set(secret, behavior);
  const { list, secretOf } = findings([{ ruleId, secret }]);
  const results = await createVerifier({ urls: providers.urls, timeoutMs })(list, secretOf);
  return results.get(list[0]!)!;
}

describe('codehost and payment checks: the status code decides', () => {
  const cases: [Behavior, string, RegExp | undefined][] = [
    ['active', 'active', undefined],
    ['forbidden', 'active', undefined],
    ['revoked', 'revoked', undefined],
    ['rate-limited', 'unchecked', /rate limited by the provider \(HTTP 429\)/],
    ['server-error', 'unchecked', /inconclusive answer \(HTTP 500\)/],
    ['redirect', 'unchecked', /unexpected redirect \(HTTP 302\)/],
    ['hang', 'unchecked', /did not answer in time/],
  ];
  const rules: [RuleId, (seed: number) => string, string][] = [
    ['codehost-token', fakeCodehostToken, '/codehost/rate_limit'],
    ['codehost-fine-grained-pat', fakeFineGrainedPat, '/codehost/rate_limit'],
    // GitHub's real prefix is checked the same way (contract section 1).
    [
      'codehost-fine-grained-pat',
      (seed) => fakeFineGrainedPat(seed).replace(/^codehost_pat_/, 'github_pat_'),
      '/codehost/rate_limit',
    ],
    ['payment-live-key', fakePaymentKey, '/payment/v1/balance'],
  ];
  for (const [ruleId, make, path] of rules) {
    it.each(cases)(`${ruleId}: %s -> %s`, async (behavior, status, reason) => {
      const secret = make(Math.floor(Math.random() * 1e6));
      const result = await verifyOne(ruleId, secret, behavior);
      expect(result.verification).toBe(status);
      if (reason) expect(result.reason).toMatch(reason);
      expect(providers.requests).toEqual([{ method: 'GET', path, authorization: `Bearer ${secret}` }]);
    });
  }
});

describe('chat checks: the ok field and the error value decide', () => {
  it.each([
    'invalid_auth',
    'token_revoked',
    'account_inactive',
    'token_expired',
    'not_authed',
  ])('error %s -> revoked', async (error) => {
    const result = await verifyOne('chat-token', fakeChatToken(11), { chatError: error });
    expect(result.verification).toBe('revoked');
  });

  it.each<[Behavior, string, RegExp | undefined]>([
    ['active', 'active', undefined],
    [{ chatError: 'ratelimited' }, 'unchecked', /inconclusive answer \(ratelimited\)/],
    [{ chatError: 'Weird Error <b>' }, 'unchecked', /^inconclusive answer$/],
    ['not-json', 'unchecked', /not JSON/],
    ['rate-limited', 'unchecked', /HTTP 429/],
    ['server-error', 'unchecked', /HTTP 500/],
    ['hang', 'unchecked', /did not answer in time/],
  ])('%j -> %s', async (behavior, status, reason) => {
    const secret = fakeChatToken(12);
    const result = await verifyOne('chat-token', secret, behavior);
    expect(result.verification).toBe(status);
    if (reason) expect(result.reason).toMatch(reason);
    expect(providers.requests).toEqual([
      { method: 'POST', path: '/chat/api/auth.test', authorization: `Bearer ${secret}` },
    ]);
  });
});

describe('limits and sharing', () => {
  it('never calls anyone for rules without a check, and says why', async () => {
    const { list, secretOf } = findings([
      { ruleId: 'cloud-access-key-id', secret: fakeCloudKeyId() },
      { ruleId: 'webapi-key', secret: fakeWebApiKey() },
      { ruleId: 'private-key', secret: '-----BEGIN RSA PRIVATE KEY-----' },
      { ruleId: 'generic-secret', secret: 'x8Fq2LmZ0pR7tY4w' },
    ]);
    const results = await createVerifier({ urls: providers.urls })(list, secretOf);
    expect(providers.requests).toEqual([]);
    expect([...results.values()].map((r) => r.verification)).toEqual(Array(4).fill('unchecked'));
    expect(results.get(list[0]!)!.reason).toMatch(/secret half of the key pair/);
  });

  it('checks at most 25 distinct credentials, code findings first', async () => {
    const items = Array.from({ length: 30 }, (_, i) => ({
      ruleId: 'codehost-token' as RuleId,
      secret: fakeCodehostToken(1000 + i),
      location: (i < 25 ? 'test' : 'code') as Location,
    }));
    const { list, secretOf } = findings(items);
    const results = await createVerifier({ urls: providers.urls })(list, secretOf);
    expect(providers.requests).toHaveLength(MAX_CREDENTIALS_PER_SCAN);
    const skipped = list.filter((f) => /at most 25/.test(results.get(f)?.reason ?? ''));
    expect(skipped).toHaveLength(5);
    expect(skipped.every((f) => f.location === 'test')).toBe(true);
    expect(
      list.filter((f) => f.location === 'code').every((f) => results.get(f)!.verification === 'revoked'),
    ).toBe(true);
  });

  it('checks a credential found in five commits once, and applies its status to all five', async () => {
    const secret = fakePaymentKey(77);
    providers.set(secret, 'active');
    const { list, secretOf } = findings(
      Array.from({ length: 5 }, (_, i) => ({
        ruleId: 'payment-live-key' as RuleId,
        secret,
        commit: `${i}`.repeat(40),
      })),
    );
    const results = await createVerifier({ urls: providers.urls })(list, secretOf);
    expect(providers.requests).toHaveLength(1);
    expect(list.map((f) => results.get(f)!.verification)).toEqual(Array(5).fill('active'));
  });

  it('adds about one timeout however many checks hang', async () => {
    const items = Array.from({ length: 25 }, (_, i) => {
      const secret = fakeCodehostToken(2000 + i);
      providers.set(secret, 'hang');
      return { ruleId: 'codehost-token' as RuleId, secret };
    });
    const { list, secretOf } = findings(items);
    const results = await createVerifier({ urls: providers.urls, timeoutMs: 400 })(list, secretOf);
    const reasons = [...results.values()].map((r) => r.reason);
    expect([...results.values()].every((r) => r.verification === 'unchecked')).toBe(true);
    // Shown by what was sent, not by elapsed time. Eight checks start together and run to their own
    // 400 ms timeout (their timers start in the same tick as the 480 ms deadline, so they fire first
    // on any machine); a second eight may start before the deadline ends them; the deadline then
    // stops the queue, and at least nine credentials are never sent. Without the shared deadline all
    // 25 would be sent, one 400 ms round of eight after another.
    expect(providers.requests.length).toBeGreaterThanOrEqual(8);
    expect(providers.requests.length).toBeLessThanOrEqual(16);
    // Each says why: its own timeout, cut short by the deadline, or never started.
    expect(
      reasons.filter(
        (r) =>
          r !== 'the provider did not answer in time' &&
          r !== 'the check was stopped: the time for checks ran out' &&
          r !== 'not checked: the time for checks ran out',
      ),
    ).toEqual([]);
    expect(reasons.filter((r) => r === 'the provider did not answer in time').length).toBeGreaterThanOrEqual(
      8,
    );
    expect(
      reasons.filter((r) => r === 'not checked: the time for checks ran out').length,
    ).toBeGreaterThanOrEqual(25 - 16);
  });

  it('uses a 10-second timeout by default (proved without waiting for it)', async () => {
    const timeout = vi.spyOn(AbortSignal, 'timeout');
    const secret = fakeCodehostToken(3000);
    providers.set(secret, 'hang');
    const { list, secretOf } = findings([{ ruleId: 'codehost-token', secret }]);
    const pending = createVerifier({ urls: providers.urls })(list, secretOf);
    await vi.waitFor(() => expect(providers.requests).toHaveLength(1));
    expect(DEFAULT_CHECK_TIMEOUT_MS).toBe(10_000);
    expect(timeout).toHaveBeenCalledWith(10_000);
    // End the hanging call from the server side instead of waiting 10 s.
    await providers.stop();
    const result = (await pending).get(list[0]!)!;
    expect(result).toEqual({ verification: 'unchecked', reason: expect.stringMatching(/^network error/) });
    providers = await FakeProviders.start();
  });
});
