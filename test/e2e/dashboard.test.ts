import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  agentAPermission,
  type BrowserSuite,
  browserTestsRun,
  expectAccessible,
  PASSWORD,
  screenshot,
  signUpInBrowser,
  startBrowserSuite,
} from '../helpers/browser.js';
import { FakeOAuthA } from '../helpers/fake-oauth.js';
import { FakeRegistries } from '../helpers/fake-registries.js';
import { fakeCloudKeyId, fakePaymentKey } from '../helpers/fake-secrets.js';
import { GitHttpServer } from '../helpers/git-http-server.js';
import { TestRepo } from '../helpers/git-repo.js';
import type { TestApp } from '../helpers/test-app.js';

const OLD = new Date('2020-01-01T00:00:00Z');

describe.skipIf(!browserTestsRun)('the dashboard in a real browser', () => {
  let browser: Browser;
  let fake: FakeOAuthA;
  let registries: FakeRegistries;
  let git: GitHttpServer;
  let repoUrl: string;
  let t: TestApp;
  let base: string;
  let suite: BrowserSuite;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    // The git server sends slowly (about 1 s for the clone): time to see the scan follow its states.
    [fake, registries, git] = await Promise.all([
      FakeOAuthA.start(),
      FakeRegistries.start(),
      GitHttpServer.start({ bytesPerSecond: 200 * 1024 }),
    ]);
    const repo = new TestRepo();
    repo.commitFiles({ 'assets/blob.bin': randomBytes(200 * 1024) }, 'assets');
    repo.commitFiles({ 'config/deploy.env': `AWS_ACCESS_KEY_ID=${fakeCloudKeyId(41)}\n` }, 'deploy');
    repo.commitFiles({ 'test/fixtures/pay.txt': `key ${fakePaymentKey(42)}\n` }, 'fixture');
    for (let i = 0; i < 30; i++) repo.commitFiles({ 'src/n.txt': `${i}\n` }, `n ${i}`);
    repoUrl = git.publish(repo.dir, 'octo', 'demo');
    repo.cleanup();
    registries
      .addPackage('npm', 'lodash', { versions: { '4.17.21': OLD } })
      .addPackage('npm', 'evil-pkg', { versions: { '1.0.0': OLD } })
      .addMalware('npm', 'evil-pkg', 'MAL-2025-4242');
    suite = await startBrowserSuite({
      registries: registries.urls,
      oauthA: { url: fake.url, clientId: fake.clientId, clientSecret: fake.clientSecret },
      env: { SVC_SCAN_HOSTS: `github.com,${git.origin}` },
    });
    ({ t, base, browser } = suite);
  });

  afterAll(async () => {
    await suite?.stop();
    await Promise.all([fake?.stop(), registries?.stop(), git?.stop()]);
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page = await context.newPage();
    return () => context.close();
  });

  const accessible = () => expectAccessible(page);
  const shot = (name: string) => screenshot(page, name);
  const signUp = (email: string) => signUpInBrowser(page, base, email);

  it('signs up, signs out and signs in again', async () => {
    await page.goto(`${base}/`);
    expect(page.url()).toBe(`${base}/auth/signin`);
    await accessible();
    await shot('signin');
    // A short password is refused by the server too (the browser's minlength is bypassed here).
    await page.locator('#signup-password').evaluate((el) => el.removeAttribute('minlength'));
    await page.locator('#signup-email').fill('ada@example.com');
    await page.locator('#signup-password').fill('too short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('at least 12 characters');
    await accessible();

    await signUp('ada@example.com');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');
    await accessible();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/auth/signin?note=signedout`);
    expect(await page.getByRole('status').textContent()).toContain('You are signed out');
    await page.goto(`${base}/dashboard`);
    expect(page.url()).toBe(`${base}/auth/signin`);

    await page.locator('#signin-email').fill('ada@example.com');
    await page.locator('#signin-password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${base}/dashboard`);
    expect(await page.textContent('header')).toContain('ada@example.com');
    await shot('signed-in');
  });

  it('creates a key that works on /api/account, copies it, revokes it, and then it is refused', async () => {
    await signUp('keys@example.com');
    await page.getByRole('link', { name: 'API keys' }).click();
    await accessible();
    await page.getByLabel('Name').fill('laptop agent');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent())?.trim() ?? '';
    expect(key).toMatch(/^svc_[0-9A-Za-z]{40}$/);
    await accessible();
    await page.locator('button[data-copy="new-key"]').click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    await shot('key-created');

    const account = await fetch(`${base}/api/account`, { headers: { authorization: `Bearer ${key}` } });
    expect(account.status).toBe(200);
    expect(await account.json()).toMatchObject({ email: 'keys@example.com', key: { name: 'laptop agent' } });

    await page.goto(`${base}/dashboard/keys`);
    expect(await page.content()).not.toContain(key);
    expect(await page.locator('tbody tr').first().textContent()).toContain('UTC'); // last used
    await page.getByRole('button', { name: /^Revoke laptop agent/ }).click();
    // Revoking asks first; Cancel changes nothing.
    await page.waitForURL(/\/dashboard\/keys\/revoke\?prefix=/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Revoke the key “laptop agent”?',
    );
    await accessible();
    await shot('keys-revoke-confirm');
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.waitForURL(`${base}/dashboard/keys`);
    expect((await fetch(`${base}/api/account`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(
      200,
    );
    await page.getByRole('button', { name: /^Revoke laptop agent/ }).click();
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForURL(/revoked=/);
    expect(await page.getByRole('status').textContent()).toContain('revoked');
    await accessible();
    const after = await fetch(`${base}/api/account`, { headers: { authorization: `Bearer ${key}` } });
    expect(after.status).toBe(401);

    await page.getByRole('link', { name: 'Setup' }).click();
    await accessible();
    const workflow = await page.locator('#codehost-a').textContent();
    expect(workflow).toContain('id-token: write');
    expect(workflow).toContain(base);
    expect(await page.locator('#codehost-b').textContent()).toContain(`${base}/integrations/gitlab/`);
    expect(await page.locator('#agent-a').textContent()).toContain('<SVC_API_KEY>');
    expect(await page.locator('#agent-b').textContent()).toContain(base);
    // Both agents' MCP configurations, with this service's /mcp and the key placeholder.
    const cursorMcp = JSON.parse((await page.locator('#mcp-a').textContent()) ?? '');
    expect(cursorMcp.mcpServers.svc).toEqual({
      url: `${base}/mcp`,
      headers: { Authorization: 'Bearer <SVC_API_KEY>' },
    });
    const claudeMcp = JSON.parse((await page.locator('#mcp-b').textContent()) ?? '');
    expect(claudeMcp.mcpServers.svc).toMatchObject({ type: 'http', url: `${base}/mcp` });
    expect(await page.locator('#mcp-b-command').textContent()).toBe(
      `claude mcp add --transport http svc ${base}/mcp --header "Authorization: Bearer <SVC_API_KEY>"`,
    );
    await shot('setup');
  });

  it('signs in with GitHub', async () => {
    fake.user = {
      id: 99,
      login: 'octo',
      emails: [{ email: 'octo@example.com', primary: true, verified: true }],
    };
    let callback = '';
    page.on('request', (r) => {
      if (r.url().includes('/auth/codehost-a/callback')) callback = r.url();
    });
    await page.goto(`${base}/auth/signin`);
    await page.getByRole('link', { name: 'Sign in with GitHub' }).click();
    await page.waitForURL(`${base}/dashboard`);
    expect(await page.textContent('header')).toContain('octo@example.com');
    await accessible();
    await shot('oauth-signed-in');
    // The same callback again (a replayed code and state) in a fresh browser: refused, since this
    // browser did not start the flow (login CSRF), and nobody is signed in.
    const other = await browser.newContext();
    try {
      const replay = await other.newPage();
      const res = await replay.goto(callback);
      expect(res?.status()).toBe(403);
      expect(await replay.getByRole('alert').textContent()).toContain('not started in this browser');
      expect(await other.cookies()).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("lets a team owner switch to warn, after which a member's hook call answers ask", async () => {
    await signUp('owner@example.com');
    await t.services.accounts.createTeam({ name: 'crew', plan: 'free', hookMode: 'block' });
    await t.services.accounts.addMember('crew', 'owner@example.com', 'owner');
    await t.session('member@example.com', PASSWORD);
    await t.services.accounts.addMember('crew', 'member@example.com');
    const memberKey = await t.services.accounts.issueKey('member@example.com', 'agent');
    const hook = () => agentAPermission(base, memberKey, 'npm install evil-pkg');
    expect(await hook()).toBe('deny');

    await page.getByRole('link', { name: 'Team' }).click();
    await accessible();
    await page.getByLabel(/^Warn/).check();
    await page.getByRole('button', { name: 'Save mode' }).click();
    await page.waitForURL(`${base}/dashboard/team?saved=1`);
    expect(await page.getByRole('status').textContent()).toContain('Hook mode saved');
    await shot('team-owner');
    expect(await hook()).toBe('ask');

    // The member sees the mode and who set it, cannot change it, and sees the verdicts.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#signin-email').fill('member@example.com');
    await page.locator('#signin-password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${base}/dashboard`);
    expect(await page.locator('table').textContent()).toContain('evil-pkg');
    await accessible();
    await shot('overview');
    await page.getByRole('link', { name: 'Team' }).click();
    expect(await page.textContent('main')).toContain('Set by owner@example.com');
    expect(await page.getByRole('button', { name: 'Save mode' }).count()).toBe(0);
    await accessible();
    await shot('team-member');
  });

  it('scans a public repository: the page follows it live, then groups the findings, and copies an ignore line', async () => {
    await signUp('scans@example.com');
    await page.getByRole('link', { name: 'Scans' }).click();
    await accessible();
    // A refused URL: the reason, and the field keeps what was typed.
    await page.getByLabel('Repository URL').fill('https://example.org/octo/demo');
    await page.getByRole('button', { name: 'Scan', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not allowed');
    expect(await page.getByLabel('Repository URL').inputValue()).toBe('https://example.org/octo/demo');
    await accessible();

    await page.getByLabel('Repository URL').fill(repoUrl);
    await page.getByRole('button', { name: 'Scan', exact: true }).click();
    await page.waitForURL(/\/dashboard\/scans\/[0-9a-f-]{36}$/);
    const scanPage = page.url();
    expect(await page.locator('[data-scan-text]').textContent()).toBe('waiting for a worker');
    await accessible();
    await shot('scan-queued');
    // No reload from here: the page's script shows the clone, then reloads itself once the scan ends.
    let loads = 0;
    page.on('load', () => loads++);
    const worker = await t.services.startScanWorker({ pollMs: 50 });
    try {
      await expect
        .poll(() => page.locator('[data-scan-status]').textContent(), { timeout: 10_000 })
        .toBe('running');
      expect(loads).toBe(0);
      await shot('scan-running');
      await expect
        .poll(() => page.getByRole('heading', { level: 2, name: /failing findings/i }).count(), {
          timeout: 30_000,
        })
        .toBe(1);
    } finally {
      await worker.stop();
    }
    expect(loads).toBe(1);
    expect(page.url()).toBe(scanPage);
    expect(await page.getByRole('heading', { level: 2, name: /failing findings/i }).textContent()).toBe(
      'Failing findings in code: 1',
    );
    // The test fixture is in the collapsed section, out of sight until opened.
    const fixture = page.getByText('test/fixtures/pay.txt:1', { exact: true });
    expect(await fixture.isVisible()).toBe(false);
    await page.getByText(/^Other locations/).click();
    expect(await fixture.isVisible()).toBe(true);
    expect(await page.locator('[data-scan-scope]').textContent()).toMatch(
      /^Scanned 33 commits: the whole history of 1 branch and 0 tags; \.svcignore read from \w+\.$/,
    );
    expect(await page.locator('[data-scan-status]').textContent()).toBe('secrets found');
    await accessible();
    await shot('scan-done');

    await page.getByRole('button', { name: 'Copy ignore line for config/deploy.env:1' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toMatch(
      /^cloud-access-key-id:[0-9a-f]{12}:config\/deploy\.env:1$/,
    );
    expect(await page.content()).not.toContain(fakeCloudKeyId(41));

    await page.getByRole('link', { name: '← All scans' }).click();
    expect(await page.locator('tbody tr').first().textContent()).toContain('1 failing in code · 2 in all');
    await accessible();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(scanPage);
    await page.getByText(/^Other locations/).click();
    await shot('scan-done-phone');
    expect(await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')).toBe(false);
  });

  it('follows a scan without JavaScript too: its page refreshes itself until the findings are there', async () => {
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    try {
      page = await noScript.newPage();
      await signUp('nojs-scan@example.com');
      await page.goto(`${base}/dashboard/scans`);
      await page.getByLabel('Repository URL').fill(repoUrl);
      await page.getByRole('button', { name: 'Scan', exact: true }).click();
      await page.waitForURL(/\/dashboard\/scans\/[0-9a-f-]{36}$/);
      expect(await page.locator('button[data-copy]').count()).toBe(0);
      const worker = await t.services.startScanWorker({ pollMs: 50 });
      try {
        await expect
          .poll(() => page.getByRole('heading', { level: 2, name: /failing findings/i }).count(), {
            timeout: 30_000,
          })
          .toBe(1);
      } finally {
        await worker.stop();
      }
      expect(await page.locator('button[data-copy]').first().isVisible()).toBe(false);
      expect(await page.textContent('main')).toMatch(
        /cloud-access-key-id:[0-9a-f]{12}:config\/deploy\.env:1/,
      );
    } finally {
      await noScript.close();
    }
  });

  it('works without JavaScript: sign up, create a key (no copy button), revoke it', async () => {
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    try {
      page = await noScript.newPage();
      await signUp('nojs@example.com');
      await page.goto(`${base}/dashboard/keys`);
      await page.getByRole('button', { name: 'Create key' }).click();
      expect((await page.locator('#new-key').textContent())?.trim()).toMatch(/^svc_[0-9A-Za-z]{40}$/);
      expect(await page.locator('button[data-copy="new-key"]').isVisible()).toBe(false);
      await page.getByRole('button', { name: /^Revoke default/ }).click();
      await page.getByRole('button', { name: 'Revoke key' }).click();
      await page.waitForURL(/revoked=/);
      expect(await page.getByRole('status').textContent()).toContain('revoked');
    } finally {
      await noScript.close();
    }
  });
});
