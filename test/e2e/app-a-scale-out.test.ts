import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureOf } from '../../src/services/app-a/signature.js';
import { openTestDatabase, REDIS_URL, scaleOutAvailable, type TestDatabase } from '../helpers/databases.js';
import { FakeCodehostA } from '../helpers/fake-codehost-a.js';
import { fakePaymentKey } from '../helpers/fake-secrets.js';
import { GitHttpServer } from '../helpers/git-http-server.js';
import { TestRepo } from '../helpers/git-repo.js';
import { startServiceProcess } from '../helpers/service-process.js';

/**
 * The GitHub application on two `svc serve` processes sharing PostgreSQL, scans dispatched by
 * BullMQ on Redis: a delivery the platform sends again, landing on the other instance at the same
 * time, is scanned once, and its check run completed once.
 */
const scaledOut = await scaleOutAvailable('GitHub scale-out tests');

const APP_ID = '31337';
const SECRET = 'scale-out-webhook-secret-0123';
const KEY = fakePaymentKey(4401);

describe.skipIf(!scaledOut)('the GitHub application on two instances (PostgreSQL, BullMQ)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  let db: TestDatabase;
  let api: FakeCodehostA;
  let git: GitHttpServer;
  let dir: string;
  const repo = new TestRepo();

  beforeAll(async () => {
    db = await openTestDatabase('postgres');
    api = await FakeCodehostA.start({ appId: APP_ID, publicKey });
    git = await GitHttpServer.start();
    dir = mkdtempSync(join(tmpdir(), 'svc-app-scale-'));
    repo.commitFiles({ 'README.md': '# scale-out\n' });
    repo.commitFiles({ 'src/billing.js': `const key = "${KEY}";\n` });
    git.publish(repo.dir, 'acme', 'scaled');
  });
  afterAll(async () => {
    await git?.stop();
    await api?.close();
    await db?.cleanup();
    repo.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('scans a delivery sent to both instances at once exactly once', async () => {
    const env = (name: string) => ({
      SVC_DATABASE_URL: db.processUrl,
      SVC_REDIS_URL: REDIS_URL,
      SVC_SCAN_QUEUE: 'bullmq',
      SVC_BINARY_PATH: join(dir, 'not-published'),
      SVC_SCAN_WORK_DIR: join(dir, `work-${name}`),
      SVC_APP_A_ID: APP_ID,
      SVC_APP_A_PRIVATE_KEY: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
      SVC_APP_A_WEBHOOK_SECRET: SECRET,
      SVC_CODEHOST_API_URL: api.url,
      SVC_CODEHOST_GIT_URL: git.origin,
    });
    const a = await startServiceProcess(env('a'), 'free', { capture: true });
    const b = await startServiceProcess(env('b'), 'free', { capture: true, key: a.key });
    try {
      const deliver = async (base: string, event: string, payload: unknown, delivery: string) => {
        const body = JSON.stringify(payload);
        const res = await fetch(`${base}/api/apps/codehost-a/webhook`, {
          method: 'POST',
          headers: {
            'x-codehosta-event': event,
            'x-codehosta-delivery': delivery,
            'x-hub-signature-256': signatureOf(SECRET, body),
          },
          body,
        });
        expect(res.status).toBe(202);
        return (await res.json()) as { status: string };
      };
      const installation = { id: 12 };
      await deliver(
        a.base,
        'installation',
        { action: 'created', installation, repositories: [{ full_name: 'acme/scaled' }] },
        'i-1',
      );
      const push = {
        ref: 'refs/heads/main',
        before: '0'.repeat(40),
        after: repo.head(),
        repository: { full_name: 'acme/scaled', default_branch: 'main' },
        installation,
      };
      const answers = await Promise.all([
        deliver(a.base, 'push', push, 'p-1'),
        deliver(b.base, 'push', push, 'p-1'),
      ]);
      expect(answers.map((x) => x.status).sort()).toEqual(['duplicate', 'queued']);

      let runs = api.checkRuns().filter((r) => r.head_sha === repo.head() && r.status === 'completed');
      for (let i = 0; i < 600 && runs.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        runs = api.checkRuns().filter((r) => r.head_sha === repo.head() && r.status === 'completed');
      }
      expect(runs).toHaveLength(1);
      expect(runs[0]?.conclusion).toBe('failure');
      expect(runs[0]?.annotations.map((x) => (x as { path: string }).path)).toEqual(['src/billing.js']);
      // Once the scan is recorded as finished, and a moment more, no second run appears.
      for (let i = 0; i < 200 && !(a.output() + b.output()).includes('"msg":"scan finished"'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(api.checkRuns().filter((r) => r.head_sha === repo.head())).toHaveLength(1);
      expect(await db.storage.scans.listUnheldScanIds(new Date(), 10)).toEqual([]);
      const logs = a.output() + b.output();
      expect(logs.match(/"msg":"application scan reported"/g)).toHaveLength(1);
      expect(logs.match(/"msg":"scan finished"/g)).toHaveLength(1);
      expect(logs).not.toContain(KEY);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
