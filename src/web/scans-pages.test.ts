import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeCloudKeyId, fakePaymentKey } from '../../test/helpers/fake-secrets.js';
import { GitHttpServer } from '../../test/helpers/git-http-server.js';
import { TestRepo } from '../../test/helpers/git-repo.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';

const PASSWORD = 'correct horse battery';
const FORM = 'application/x-www-form-urlencoded';
const CLOUD = fakeCloudKeyId(31);
const PAYMENT = fakePaymentKey(32);

let git: GitHttpServer;
let url: string;
let t: TestApp;
let ada: string;
let ip = 0;
/** Each start from an address of its own, so the 5-a-minute limit counts only where a test means it. */
const freshIp = () => `198.51.100.${++ip}`;

beforeAll(async () => {
  git = await GitHttpServer.start();
  const repo = new TestRepo();
  repo.commitFiles({ 'README.md': '# demo\n' }, 'initial');
  repo.commitFiles({ 'config/deploy.env': `AWS_ACCESS_KEY_ID=${CLOUD}\n` }, 'deploy');
  repo.commitFiles({ 'test/fixtures/pay.txt': `key ${PAYMENT}\n` }, 'fixture');
  // What the scan page says it covered: two branches and a tag.
  repo.git('tag', 'v1.0.0');
  repo.git('branch', 'release');
  url = git.publish(repo.dir, 'octo', 'pages');
  repo.cleanup();
  t = await startTestApp({ env: { SVC_SCAN_HOSTS: `github.com,${git.origin}` } });
  ada = await t.session('ada@example.com', PASSWORD);
});

afterAll(async () => {
  await t?.cleanup();
  await git?.stop();
});

const page = async (path: string, cookie = ada) => {
  const response = await t.request(path, { headers: { cookie } });
  return { status: response.status, html: await response.text(), headers: response.headers };
};
const startByForm = (scanUrl: string, headers: Record<string, string> = {}, from = freshIp()) =>
  t.request('/dashboard/scans', {
    ip: from,
    headers: { 'content-type': FORM, accept: 'text/html', cookie: ada, origin: t.config.baseUrl, ...headers },
    body: new URLSearchParams({ url: scanUrl }).toString(),
  });
const scanIdOf = (response: Response) =>
  /^\/dashboard\/scans\/([^/]+)$/.exec(response.headers.get('location') ?? '')?.[1] as string;

async function runWorkerUntilDone(id: string): Promise<void> {
  const worker = await t.services.startScanWorker({ pollMs: 20 });
  try {
    const viewer = await t.db.storage.accounts.findUserByEmail('ada@example.com');
    for (;;) {
      const scan = await t.db.storage.scans.findScan(id, { userId: viewer!.id, teamId: null });
      if (scan?.status === 'done' || scan?.status === 'failed') return;
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await worker.stop();
  }
}

describe('the scans pages', () => {
  it('starts a scan from the form, follows it while queued and running, then groups its findings', async () => {
    const started = await startByForm(url);
    expect(started.status).toBe(303);
    const id = scanIdOf(started);
    expect(id).toBeTruthy();

    // Queued: the page follows it (the script's API URL, the no-JavaScript refresh).
    const queued = await page(`/dashboard/scans/${id}`);
    expect(queued.status).toBe(200);
    expect(queued.html).toContain(`data-scan="/api/scans/${id}"`);
    expect(queued.html).toContain('<noscript><meta http-equiv="refresh" content="3"/></noscript>');
    expect(queued.html).toContain('waiting for a worker');

    // Running, with progress written by a worker holding the lease.
    // (Scans other tests queued before, in whatever order they ran, are taken out of the way.)
    for (;;) {
      const claimed = await t.db.storage.scans.claimNextScan('page-test', new Date(), 60_000);
      expect(claimed).not.toBeNull();
      if (claimed?.id === id) break;
      await t.db.storage.scans.failScan(claimed!.id, 'page-test', 'out of the way', new Date());
    }
    await t.db.storage.scans.recordScanProgress(id, 'page-test', 2, 3);
    const running = await page(`/dashboard/scans/${id}`);
    expect(running.html).toMatch(/<progress value="2" max="3"[^>]*>/);
    expect(running.html).toContain('2 of 3 commits');
    await t.db.storage.scans.releaseScan(id, 'page-test');

    await runWorkerUntilDone(id);
    const done = await page(`/dashboard/scans/${id}`);
    expect(done.html).not.toContain('data-scan=');
    expect(done.html).not.toContain('http-equiv="refresh"');
    expect(done.html).toContain('Failing findings in code: 1');
    expect(done.html).toContain('<span class="badge deny">secrets found</span>');
    expect(done.html).toMatch(
      /<p data-scan-scope="true">Scanned 3 commits: the whole history of 2 branches and 1 tag; .svcignore read from [a-z]+\.<\/p>/,
    );
    // The failing code finding first; the test fixture's in the collapsed "other locations".
    const details = done.html.indexOf('<details');
    expect(details).toBeGreaterThan(0);
    expect(done.html.indexOf('config/deploy.env:1')).toBeLessThan(details);
    expect(done.html.indexOf('test/fixtures/pay.txt:1')).toBeGreaterThan(details);
    expect(done.html).toContain('Other locations (1 finding, not failing)');
    // Each finding's ignore line, with its copy button; masked values only.
    const ignoreLines = [...done.html.matchAll(/<code id="(ignore-[a-z0-9]+)">([^<]+)<\/code>/g)];
    expect(ignoreLines.map((m) => m[2])).toEqual([
      expect.stringMatching(/^cloud-access-key-id:[0-9a-f]{12}:config\/deploy\.env:1$/),
      expect.stringMatching(/^payment-live-key:[0-9a-f]{12}:test\/fixtures\/pay\.txt:1$/),
    ]);
    for (const [, elementId] of ignoreLines) expect(done.html).toContain(`data-copy="${elementId}"`);
    expect(done.html).toContain(`AKIA${'*'.repeat(16)}`);
    expect(done.html).not.toContain(CLOUD);
    expect(done.html).not.toContain(PAYMENT);

    const list = await page('/dashboard/scans');
    expect(list.html).toContain(`href="/dashboard/scans/${id}"`);
    expect(list.html).toContain('1 failing in code · 2 in all');
  });

  it('refuses a URL it may not scan with the reason, keeps what was typed, and queues nothing', async () => {
    const before = (await t.services.scans.list(await principalOf('ada@example.com'))).length;
    for (const bad of [
      'ssh://git@github.com/octo/app.git',
      'https://user:pw@github.com/octo/app',
      'x'.repeat(3000),
    ]) {
      const refused = await startByForm(bad);
      expect(refused.status).toBe(400);
      const html = await refused.text();
      expect(html).toMatch(/<div class="notice error" role="alert">[^<]+\.<\/div>/);
      expect(html).toContain('aria-invalid="true"');
      if (bad.length < 100) expect(html).toContain(`value="${bad.replace(/&/g, '&amp;')}"`);
    }
    expect((await t.services.scans.list(await principalOf('ada@example.com'))).length).toBe(before);
  });

  it('refuses a start posted from another site (403) and sends a visitor without a session to sign in', async () => {
    const before = (await t.services.scans.list(await principalOf('ada@example.com'))).length;
    const forged = await startByForm(url, { origin: 'https://evil.example' });
    expect(forged.status).toBe(403);
    expect((await t.services.scans.list(await principalOf('ada@example.com'))).length).toBe(before);
    const anonymous = await t.request('/dashboard/scans');
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toBe('/auth/signin');
  });

  it('cancels a queued scan from its page (own origin only)', async () => {
    const id = scanIdOf(await startByForm(url));
    const before = await page(`/dashboard/scans/${id}`);
    expect(before.html).toContain(`action="/dashboard/scans/${id}/cancel"`);
    const post = (origin: string) =>
      t.request(`/dashboard/scans/${id}/cancel`, {
        method: 'POST',
        headers: { 'content-type': FORM, cookie: ada, origin },
        body: '',
      });
    expect((await post('https://evil.example')).status).toBe(403);
    const canceled = await post(t.config.baseUrl);
    expect(canceled.status).toBe(303);
    expect(canceled.headers.get('location')).toBe(`/dashboard/scans/${id}`);
    const after = await page(`/dashboard/scans/${id}`);
    expect(after.html).toContain('The scan was canceled.');
    expect(after.html).not.toContain('data-scan=');
    expect(after.html).not.toContain('/cancel"');
    const again = await post(t.config.baseUrl);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('only a queued or running scan can be canceled');
  });

  it("shows nobody else's scan: 404 with a message, as for one that does not exist", async () => {
    const started = await startByForm(url);
    const id = scanIdOf(started);
    const bob = await t.session('bob@example.com', PASSWORD);
    for (const [path, cookie] of [
      [`/dashboard/scans/${id}`, bob],
      ['/dashboard/scans/no-such-scan', ada],
    ] as const) {
      const other = await page(path, cookie);
      expect(other.status).toBe(404);
      expect(other.html).toContain('Scan not found.');
    }
    expect((await page('/dashboard/scans', bob)).html).not.toContain(id);
  });

  it('counts page and API starts together against 5 a minute per IP; the 6th gets a page saying when to retry', async () => {
    const from = freshIp();
    const key = await t.services.accounts.issueKey('ada@example.com', 'limits');
    for (let i = 0; i < 3; i++) {
      const api = await t.request('/api/scans', {
        key,
        ip: from,
        body: JSON.stringify({ url }),
        headers: { 'content-type': 'application/json' },
      });
      expect(api.status).toBe(202);
    }
    for (let i = 0; i < 2; i++) expect((await startByForm(url, {}, from)).status).toBe(303);
    const limited = await startByForm(url, {}, from);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await limited.text()).toMatch(/Rate limit exceeded: 5 requests a minute; retry in \d+ s\./);
  });
});

async function principalOf(email: string) {
  const user = await t.db.storage.accounts.findUserByEmail(email);
  return { user: user!, team: null, plan: 'free' as const, key: null };
}
