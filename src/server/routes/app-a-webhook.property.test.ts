import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { signatureOf } from '../../services/app-a/signature.js';

/**
 * The GitHub application's webhook on any delivery: signed bodies of every event's shape, any
 * JSON and no JSON at all, with any headers, answer 202 or 400 (never a 5xx, never an error logged);
 * a delivery whose signature is anything but the body's answers 401 and queues nothing. The platform
 * is a closed port and no worker runs, so nothing leaves the machine.
 */
const SECRET = 'property-secret-0123456789';
const PATH = '/api/apps/codehost-a/webhook';
let t: TestApp;

beforeAll(async () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  t = await startTestApp({
    env: {
      SVC_APP_A_ID: '1',
      SVC_APP_A_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      SVC_APP_A_WEBHOOK_SECRET: SECRET,
      SVC_CODEHOST_API_URL: 'http://127.0.0.1:9',
      SVC_CODEHOST_GIT_URL: 'http://127.0.0.1:9',
    },
  });
  // Some deliveries name an installed repository, so their scans are queued (and never run).
  await t.services.storage.appRepositories.addRepositories(7, ['acme/app'], new Date());
});
afterAll(() => t.cleanup());

const sha = fc.oneof(
  fc.stringMatching(/^[0-9a-f]{40}$/),
  fc.constant('0'.repeat(40)),
  fc.string({ maxLength: 45 }),
);
const installation = fc.oneof(
  { weight: 3, arbitrary: fc.record({ id: fc.constantFrom(7, 8) }) },
  { weight: 1, arbitrary: fc.jsonValue() },
);
const repository = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      full_name: fc.constantFrom('acme/app', 'ACME/App', 'other/repo', 'no-slash', ''),
      default_branch: fc.constantFrom('main', 'trunk', ''),
    }),
  },
  { weight: 1, arbitrary: fc.jsonValue() },
);
const names = fc.array(fc.oneof(fc.record({ full_name: fc.string({ maxLength: 20 }) }), fc.jsonValue()), {
  maxLength: 3,
});

const push = fc.record(
  {
    ref: fc.constantFrom('refs/heads/main', 'refs/heads/x', 'refs/tags/v1', ''),
    before: sha,
    after: sha,
    deleted: fc.boolean(),
    forced: fc.boolean(),
    repository,
    installation,
  },
  { requiredKeys: [] },
);
const pullRequest = fc.record(
  {
    action: fc.constantFrom('opened', 'synchronize', 'reopened', 'closed', 'labeled'),
    number: fc.oneof(fc.integer({ min: -2, max: 1000 }), fc.jsonValue()),
    pull_request: fc.oneof(fc.record({ head: fc.record({ sha }), base: fc.record({ sha }) }), fc.jsonValue()),
    repository,
    installation,
  },
  { requiredKeys: [] },
);
const installationEvent = fc.record(
  {
    action: fc.constantFrom('created', 'deleted', 'suspend', 'unsuspend', 'new_permissions_accepted'),
    installation,
    repositories: names,
    repositories_added: names,
    repositories_removed: names,
  },
  { requiredKeys: [] },
);

const body = fc.oneof(
  { weight: 3, arbitrary: fc.oneof(push, pullRequest, installationEvent).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.json() },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '{', '[]', 'null', '\ufeff{}', '{"a":}') },
);
const event = fc.oneof(
  fc.constantFrom('push', 'pull_request', 'installation', 'installation_repositories', 'ping', 'star'),
  fc.string({ maxLength: 20 }),
  fc.constant(undefined),
);
const delivery = fc.oneof(
  { weight: 3, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.string({ maxLength: 120 }) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

async function send(text: string, headers: Record<string, string | undefined>) {
  const before = t.logs.length;
  const defined = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  const response = await t.request(PATH, { method: 'POST', body: text, headers: defined });
  const answer = await response.text();
  const errors = t.logs.slice(before).filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
  return { status: response.status, json: JSON.parse(answer) as Record<string, unknown>, errors };
}

const queued = async () => (await t.services.storage.scans.listUnheldScanIds(new Date(), 100_000)).length;

describe('POST /api/apps/codehost-a/webhook on any delivery', () => {
  it('answers a signed delivery 202 or 400 with JSON, never a 5xx or a logged error', async () => {
    await fc.assert(
      fc.asyncProperty(body, event, delivery, async (text, name, id) => {
        const answer = await send(text, {
          'x-codehosta-event': name,
          'x-codehosta-delivery': id,
          'x-hub-signature-256': signatureOf(SECRET, text),
        });
        expect([202, 400]).toContain(answer.status);
        expect(answer.errors).toEqual([]);
        if (answer.status === 202)
          expect(['queued', 'duplicate', 'recorded', 'ignored']).toContain(answer.json.status);
        else expect(typeof answer.json.error).toBe('string');
      }),
      { numRuns: 300 },
    );
  });

  it('answers 401 and queues nothing for any signature that is not the body’s', async () => {
    const signature = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.stringMatching(/^sha256=[0-9a-f]{0,70}$/),
      fc.string({ maxLength: 20 }).map((other) => signatureOf(SECRET, `${other}!`)),
      fc.string({ maxLength: 20 }).map((other) => signatureOf('another-secret-0123456789', other)),
      fc.constant(undefined),
    );
    const installedPush = fc.tuple(fc.stringMatching(/^[0-9a-f]{40}$/), fc.uuid()).map(([after, id]) => ({
      id,
      text: JSON.stringify({
        ref: 'refs/heads/main',
        before: '0'.repeat(40),
        after,
        repository: { full_name: 'acme/app', default_branch: 'main' },
        installation: { id: 7 },
      }),
    }));
    const before = await queued();
    await fc.assert(
      fc.asyncProperty(installedPush, signature, async ({ id, text }, given) => {
        fc.pre(given !== signatureOf(SECRET, text));
        const answer = await send(text, {
          'x-codehosta-event': 'push',
          'x-codehosta-delivery': id,
          'x-hub-signature-256': given,
        });
        expect(answer.status).toBe(401);
        expect(answer.errors).toEqual([]);
      }),
      { numRuns: 300 },
    );
    expect(await queued()).toBe(before);
  });
});
