import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeCodehostA } from '../../../test/helpers/fake-codehost-a.js';
import { fakeCloudKeyId, fakeCodehostToken, fakePaymentKey } from '../../../test/helpers/fake-secrets.js';
import { GitHttpServer } from '../../../test/helpers/git-http-server.js';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { startTestApp } from '../../../test/helpers/test-app.js';
import { signatureOf } from '../../services/app-a/signature.js';
import type { ScanWorker } from '../../services/scan-worker.js';

/**
 * The GitHub application end to end: signed deliveries to the real app, the real worker, git
 * fetches from a real git server on loopback that takes only the installation tokens the fake
 * GitHub API issued, check runs on that fake API, and credential checks against it too.
 */
const APP_ID = '4242';
const SECRET = 'whsec-test-0123456789abcdef';
const INSTALLATION = 77;
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

let api: FakeCodehostA;
let git: GitHttpServer;
let t: Awaited<ReturnType<typeof startTestApp>>;
let worker: ScanWorker;
const repos: TestRepo[] = [];
let deliveries = 0;

beforeAll(async () => {
  api = await FakeCodehostA.start({ appId: APP_ID, publicKey });
  git = await GitHttpServer.start({
    authorize: (header) => {
      const basic = /^Basic (.+)$/.exec(header ?? '')?.[1];
      if (basic === undefined) return false;
      const [user, token] = Buffer.from(basic, 'base64').toString('utf8').split(':');
      return user === 'x-access-token' && api.isValidToken(token ?? '');
    },
  });
  t = await startTestApp({
    env: {
      SVC_APP_A_ID: APP_ID,
      // PKCS#1, as the platform hands it out.
      SVC_APP_A_PRIVATE_KEY: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
      SVC_APP_A_WEBHOOK_SECRET: SECRET,
      SVC_CODEHOST_API_URL: api.url,
      SVC_CODEHOST_GIT_URL: git.origin,
    },
  });
  worker = await t.services.startScanWorker({ pollMs: 50 });
}, 30_000);

afterAll(async () => {
  await worker?.stop();
  await t?.cleanup();
  await git?.stop();
  await api?.close();
  for (const r of repos) r.cleanup();
});

function deliver(
  event: string,
  payload: unknown,
  options: { secret?: string | null; delivery?: string } = {},
) {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-codehosta-event': event,
    'x-codehosta-delivery': options.delivery ?? `delivery-${++deliveries}`,
  };
  if (options.secret !== null) headers['x-hub-signature-256'] = signatureOf(options.secret ?? SECRET, body);
  return t.request('/api/apps/codehost-a/webhook', { method: 'POST', body, headers });
}

/** A repository published on the git server as OWNER/NAME, and installed (or not). */
async function published(name: string, options: { install?: boolean } = {}) {
  const repo = new TestRepo();
  repos.push(repo);
  // Each repository's own first commit: tests find their check run by commit id.
  repo.commitFiles({ 'README.md': `# ${name}\n` });
  repo.git('init', '-q', '--bare', git.pathOf('acme', name));
  const fullName = `acme/${name}`;
  if (options.install !== false) {
    const response = await deliver('installation', {
      action: 'created',
      installation: { id: INSTALLATION },
      repositories: [{ full_name: fullName }],
    });
    expect(response.status).toBe(202);
  }
  return { repo, fullName, serverPath: () => git.pathOf('acme', name) };
}

/** Pushes the local repository's branch to the git server, as a developer's push would. */
function pushTo(repo: TestRepo, serverPath: string, branch = 'main', force = false) {
  repo.git('push', '-q', ...(force ? ['--force'] : []), serverPath, `${branch}:refs/heads/${branch}`);
}

function pushPayload(fullName: string, before: string, after: string, branch = 'main') {
  return {
    ref: `refs/heads/${branch}`,
    before,
    after,
    repository: { full_name: fullName, default_branch: 'main' },
    installation: { id: INSTALLATION },
  };
}

const ZERO = '0'.repeat(40);

/** Waits until the check run on `sha` is completed, and returns it. */
async function completedCheckRun(sha: string) {
  for (;;) {
    const run = api.checkRuns().find((r) => r.head_sha === sha && r.status === 'completed');
    if (run !== undefined) return run;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the webhook: signatures', () => {
  it('answers 401 and queues nothing for a bad, missing or other signature; 202 for a good one', async () => {
    const { repo, fullName, serverPath } = await published('signed');
    pushTo(repo, serverPath());
    const head = repo.head();
    const payload = pushPayload(fullName, ZERO, head);

    const missing = await deliver('push', payload, { secret: null });
    const other = await deliver('push', payload, { secret: 'another-secret-0123456789' });
    const tampered = await t.request('/api/apps/codehost-a/webhook', {
      method: 'POST',
      body: JSON.stringify({ ...payload, after: ZERO.replace(/0/g, 'a') }),
      headers: {
        'x-codehosta-event': 'push',
        'x-codehosta-delivery': 'tampered-1',
        'x-hub-signature-256': signatureOf(SECRET, JSON.stringify(payload)),
      },
    });
    for (const response of [missing, other, tampered]) {
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: 'the webhook signature is missing or does not match' });
    }
    // Nothing was queued: give a worker time to have picked up a job, then look for a check run on
    // this push's head (other tests' runs may land meanwhile: they run in any order, on one fake API).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(api.checkRuns().filter((r) => r.head_sha === head)).toEqual([]);

    const good = await deliver('push', payload);
    expect(good.status).toBe(202);
    expect(await good.json()).toMatchObject({ status: 'queued' });
    expect((await completedCheckRun(head)).conclusion).toBe('success');
  });

  it('refuses a delivery over 25 MiB with 413, signature good or not, and records nothing', async () => {
    const { fullName } = await published('oversized');
    // A push payload padded past the platform's 25 MB, correctly signed.
    const payload = { ...pushPayload(fullName, ZERO, 'a'.repeat(40)), pad: 'x'.repeat(25 * 1024 * 1024) };
    const response = await deliver('push', payload, { delivery: 'oversized-1' });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: 'delivery over 25 MiB' });
    // Not seen: the same delivery id, small, is taken as new.
    const small = await deliver('push', { ...payload, pad: undefined }, { delivery: 'oversized-1' });
    expect(await small.json()).not.toEqual({ status: 'duplicate' });
  });

  it('acknowledges a replayed delivery without scanning it twice', async () => {
    const { repo, fullName, serverPath } = await published('replayed');
    pushTo(repo, serverPath());
    const payload = pushPayload(fullName, ZERO, repo.head());
    const first = await deliver('push', payload, { delivery: 'same-delivery' });
    const again = await deliver('push', payload, { delivery: 'same-delivery' });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual({ status: 'duplicate' });
    await completedCheckRun(repo.head());
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(api.checkRuns().filter((r) => r.head_sha === repo.head())).toHaveLength(1);
  });
});

describe('the webhook: installations', () => {
  it('ignores a repository the application is not installed on, and one removed from it', async () => {
    const { repo, fullName } = await published('not-installed', { install: false });
    const response = await deliver('push', pushPayload(fullName, ZERO, repo.head()));
    expect(await response.json()).toEqual({
      status: 'ignored',
      reason: 'the application is not installed on this repository',
    });

    const added = await deliver('installation_repositories', {
      action: 'added',
      installation: { id: INSTALLATION },
      repositories_added: [{ full_name: fullName }],
      repositories_removed: [],
    });
    expect(await added.json()).toEqual({ status: 'recorded' });
    expect(await t.services.storage.appRepositories.installationOf(fullName.toUpperCase())).toBe(
      INSTALLATION,
    );

    await deliver('installation_repositories', {
      action: 'removed',
      installation: { id: INSTALLATION },
      repositories_added: [],
      repositories_removed: [{ full_name: fullName }],
    });
    const after = await deliver('push', pushPayload(fullName, ZERO, repo.head()));
    expect((await after.json()) as { status: string }).toMatchObject({ status: 'ignored' });
  });

  it('answers 400 for a signed body that is not the event it names, and ignores other events', async () => {
    const bad = await deliver('push', { ref: 'refs/heads/main' });
    expect(bad.status).toBe(400);
    const other = await deliver('star', { action: 'created' });
    expect(await other.json()).toEqual({ status: 'ignored', reason: 'the star event is not used' });
  });
});

describe('scans of pushes and pull requests', () => {
  it('fails the check run for an ACTIVE token in code, with annotations and never the secret', async () => {
    const { repo, fullName, serverPath } = await published('leaky');
    pushTo(repo, serverPath());
    const before = repo.head();
    const token = fakeCodehostToken(901);
    api.liveCredentials.add(token);
    const after = repo.commitFiles({
      'src/deploy.js': `const a = 1;\nconst token = "${token}";\n`,
      'test/fixture.env': `KEY=${fakeCloudKeyId(902)}\n`,
    });
    pushTo(repo, serverPath());
    expect((await deliver('push', pushPayload(fullName, before, after))).status).toBe(202);

    const run = await completedCheckRun(after);
    expect(run.name).toBe('svc secret scan');
    expect(run.conclusion).toBe('failure');
    expect(run.output.title).toContain('ACTIVE');
    expect(run.output.summary).toContain('ACTIVE');
    expect(run.annotations).toEqual([
      expect.objectContaining({
        path: 'src/deploy.js',
        start_line: 2,
        end_line: 2,
        annotation_level: 'failure',
      }),
    ]);
    // The credential was checked against the platform's API, and the secret went nowhere else.
    const everything = JSON.stringify(api.requests.filter((r) => r.path !== '/rate_limit')) + t.logs.join('');
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(fakeCloudKeyId(902));
    expect(JSON.stringify(api.checkRuns())).not.toContain(token.slice(4));
  });

  it('passes a clean push, scanning only the new commit of a long history', async () => {
    const { repo, fullName, serverPath } = await published('long-history');
    // History with secrets already in it: an incremental scan must not report them again.
    repo.commitFiles({ 'old.env': `STRIPE=${fakePaymentKey(903)}\n` });
    for (let i = 0; i < 60; i++) repo.commitFiles({ [`src/file${i % 7}.js`]: `export const v = ${i};\n` });
    pushTo(repo, serverPath());
    const before = repo.head();
    const after = repo.commitFiles({ 'src/clean.js': 'export const clean = true;\n' });
    pushTo(repo, serverPath());
    const queued = (await (await deliver('push', pushPayload(fullName, before, after))).json()) as {
      scan: string;
    };

    const run = await completedCheckRun(after);
    expect(run.conclusion).toBe('success');
    expect(run.output.title).toBe('No secrets in 1 new commit');
    // The fetch brought the pushed commit and two of its ancestors (depth 2 from each tip), not 62 commits.
    // The job logs it just after completing the check run: waited for (the test's timeout bounds it).
    type Reported = { msg: string; scan?: string; commitsFetched?: number };
    const reportedLine = () =>
      t.logs
        .map((line) => JSON.parse(line) as Reported)
        .find((line) => line.msg === 'application scan reported' && line.scan === queued.scan);
    let reported = reportedLine();
    while (reported === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      reported = reportedLine();
    }
    expect(reported.commitsFetched).toBe(3);
  });

  it('sends 120 code findings as annotations in 3 requests', async () => {
    const { repo, fullName, serverPath } = await published('many');
    pushTo(repo, serverPath());
    const before = repo.head();
    const lines = Array.from({ length: 120 }, (_, i) => `KEY_${i}=${fakeCloudKeyId(1000 + i)}`);
    const after = repo.commitFiles({ 'config/keys.env': `${lines.join('\n')}\n` });
    pushTo(repo, serverPath());
    await deliver('push', pushPayload(fullName, before, after));

    const run = await completedCheckRun(after);
    expect(run.conclusion).toBe('failure');
    expect(run.annotations).toHaveLength(120);
    expect(new Set(run.annotations.map((a) => (a as { start_line: number }).start_line)).size).toBe(120);
    const withAnnotations = api.requests.filter(
      (r) =>
        r.path === `/repos/acme/many/check-runs/${run.id}` &&
        ((r.body as { output?: { annotations?: unknown[] } })?.output?.annotations?.length ?? 0) > 0,
    );
    expect(
      withAnnotations.map(
        (r) => (r.body as { output: { annotations: unknown[] } }).output.annotations.length,
      ),
    ).toEqual([50, 50, 20]);
  });

  it('scans the commits of a pull request, not the base it branches from', async () => {
    const { repo, fullName, serverPath } = await published('pulls');
    repo.commitFiles({ 'base.env': `KEY=${fakeCloudKeyId(904)}\n` });
    pushTo(repo, serverPath());
    const base = repo.head();
    repo.git('checkout', '-q', '-b', 'feature');
    repo.commitFiles({ 'a.txt': 'a\n' });
    const head = repo.commitFiles({ 'src/pay.js': `const k = "${fakePaymentKey(905)}";\n` });
    // The platform keeps a pull request's head under refs/pull/N/head in the base repository.
    repo.git('push', '-q', serverPath(), `feature:refs/pull/1/head`);
    await deliver('pull_request', {
      action: 'opened',
      number: 1,
      pull_request: { head: { sha: head }, base: { sha: base } },
      repository: { full_name: fullName, default_branch: 'main' },
      installation: { id: INSTALLATION },
    });
    const run = await completedCheckRun(head);
    expect(run.conclusion).toBe('failure');
    expect(run.output.title).toMatch(/^1 secret in code \(2 new commits\)$/);
    expect(run.annotations.map((a) => (a as { path: string }).path)).toEqual(['src/pay.js']);
  });

  it('does not fail the job when a force-push removed the commits it replaced', async () => {
    const { repo, fullName, serverPath } = await published('forced');
    pushTo(repo, serverPath());
    repo.git('checkout', '-q', '-b', 'topic');
    const dropped = repo.commitFiles({ 'wip.txt': 'wip\n' });
    pushTo(repo, serverPath(), 'topic');
    repo.git('reset', '-q', '--hard', 'main');
    const rewritten = repo.commitFiles({ 'done.js': `const k = "${fakePaymentKey(906)}";\n` });
    pushTo(repo, serverPath(), 'topic', true);
    // The host no longer has the replaced commit at all.
    const server = new TestRepo();
    repos.push(server);
    server.git('-C', serverPath(), 'reflog', 'expire', '--expire=now', '--all');
    server.git('-C', serverPath(), 'gc', '-q', '--prune=now');
    await deliver('push', { ...pushPayload(fullName, dropped, rewritten, 'topic'), forced: true });

    const run = await completedCheckRun(rewritten);
    expect(run.conclusion).toBe('failure');
    expect(run.output.title).toBe('1 secret in code (1 new commit)');
  });

  it('completes the check run as neutral, with the reason, when the repository cannot be fetched', async () => {
    const { repo, fullName } = await published('vanished');
    // Never pushed: the host has no such commit.
    const head = repo.head();
    await deliver('push', pushPayload(fullName, ZERO, head));
    const run = await completedCheckRun(head);
    expect(run.conclusion).toBe('neutral');
    expect(run.output.summary).toContain('could not be fetched');
    expect(api.checkRuns().filter((r) => r.head_sha === head)).toHaveLength(1);
  });

  it('renews an expired installation token and retries the platform answering 502 and 429', async () => {
    const { repo, fullName, serverPath } = await published('flaky');
    pushTo(repo, serverPath());
    const before = repo.head();
    const after = repo.commitFiles({ 'x.txt': 'x\n' });
    pushTo(repo, serverPath());
    api.expireTokens();
    const exchangesBefore = api.requests.filter((r) => r.path.endsWith('/access_tokens')).length;
    api.failNext(1, 502, { path: /check-runs$/ });
    api.failNext(1, 429, { path: /check-runs\/\d+$/, headers: { 'retry-after': '0' } });
    await deliver('push', pushPayload(fullName, before, after));

    const run = await completedCheckRun(after);
    expect(run.conclusion).toBe('success');
    const exchanges = api.requests.filter((r) => r.path.endsWith('/access_tokens')).length - exchangesBefore;
    expect(exchanges).toBeGreaterThanOrEqual(1);
    expect(api.requests.filter((r) => r.status === 502 || r.status === 429).length).toBeGreaterThanOrEqual(2);
  });
});

describe('without the application configured', () => {
  it('answers 404 and stores nothing', async () => {
    const plain = await startTestApp();
    try {
      const body = JSON.stringify({ zen: 'hi' });
      const response = await plain.request('/api/apps/codehost-a/webhook', {
        method: 'POST',
        body,
        headers: { 'x-codehosta-event': 'ping', 'x-hub-signature-256': signatureOf(SECRET, body) },
      });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        error: 'the GitHub application is not configured on this service',
      });
    } finally {
      await plain.cleanup();
    }
  });
});
