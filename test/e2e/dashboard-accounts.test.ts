import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/auth/session-ids.js';
import { runAdmin } from '../helpers/admin.js';
import {
  type BrowserSuite,
  browserTestsRun,
  expectAccessible,
  PASSWORD,
  screenshot,
  signInInBrowser,
  signUpInBrowser,
  startBrowserSuite,
} from '../helpers/browser.js';
import type { TestApp } from '../helpers/test-app.js';

const NEW_PASSWORD = 'purple otter kettle drum';

/**
 * Issue 33's accounts, end to end in Debian's chromium: one-time links from `svc admin` (run as the
 * CLI runs it), the account page, sign out everywhere. axe on every page, a screenshot of each.
 */
describe.skipIf(!browserTestsRun)('accounts without an operator, in a real browser', () => {
  let browser: Browser;
  let t: TestApp;
  let base: string;
  let suite: BrowserSuite;
  /** Every link token the tests were given: none may be written anywhere. */
  const tokens: string[] = [];

  beforeAll(async () => {
    suite = await startBrowserSuite();
    ({ t, base, browser } = suite);
  });

  afterAll(() => suite?.stop());

  /** The browsers a test opened, closed after it whatever happened. */
  const opened: BrowserContext[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((context) => context.close()));
  });

  /** A fresh browser (its own cookies): what a second device is. */
  async function newPage(
    options: { javaScriptEnabled?: boolean } = {},
  ): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 }, ...options });
    opened.push(context);
    return { context, page: await context.newPage() };
  }

  /** `svc admin ARGS`, as the CLI runs it; the link it printed alone on stdout. */
  async function adminLink(...args: string[]): Promise<string> {
    const r = await runAdmin(args, { databaseUrl: t.db.processUrl, baseUrl: base });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\/set-password\?token=[A-Za-z0-9_-]{43}\n$/);
    expect(r.stderr).toContain('valid 24 h and works once');
    const link = r.stdout.trim();
    tokens.push(new URL(link).searchParams.get('token') as string);
    return link;
  }

  /** The "no secret written" standard: no link token in the database's files or the service's log. */
  function expectNoTokenWritten(): void {
    const dir = dirname(t.db.url.slice('sqlite:'.length));
    const files = readdirSync(dir).map((f) => readFileSync(`${dir}/${f}`).toString('latin1'));
    expect(files.length).toBeGreaterThan(0);
    const logs = t.logs.join('\n');
    expect(logs).toContain('/auth/set-password');
    for (const token of tokens) {
      for (const content of [...files, logs]) expect(content.includes(token)).toBe(false);
    }
  }

  async function setPassword(page: Page, link: string, password: string): Promise<void> {
    await page.goto(link);
    await page.getByLabel('New password').fill(password);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
  }

  /** Whether the browser is still signed in: the dashboard answers, or it is sent to sign in. */
  async function signedIn(page: Page): Promise<boolean> {
    await page.goto(`${base}/dashboard`);
    return page.url() === `${base}/dashboard`;
  }

  it('an operator-made user opens the link, sets a password, and signs in with it', async () => {
    const link = await adminLink('create-user', '--email', 'made@example.com');
    const { page } = await newPage();
    await page.goto(link);
    expect(await page.getByRole('heading', { level: 2 }).textContent()).toContain('made@example.com');
    await expectAccessible(page);
    await screenshot(page, 'accounts-set-password');
    // A short password: the server refuses it too (minlength removed), and the link keeps working.
    await page.getByLabel('New password').evaluate((el) => el.removeAttribute('minlength'));
    await page.getByLabel('New password').fill('too short');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('at least 12 characters');
    await expectAccessible(page);
    await screenshot(page, 'accounts-set-password-refused');

    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.waitForURL(`${base}/dashboard`);
    expect(await page.textContent('header')).toContain('made@example.com');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${base}/auth/signin?note=signedout`);
    await signInInBrowser(page, base, 'made@example.com', NEW_PASSWORD);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');
    await screenshot(page, 'accounts-set-password-signed-in');
    expectNoTokenWritten();
  });

  it('a user resets a forgotten password: the old one and the old session end, the link works once', async () => {
    const laptop = await newPage();
    const phone = await newPage();
    await signUpInBrowser(laptop.page, base, 'forgot@example.com');
    const link = await adminLink('reset-password', '--email', 'forgot@example.com');
    await setPassword(phone.page, link, NEW_PASSWORD);
    await phone.page.waitForURL(`${base}/dashboard`);

    expect(await signedIn(laptop.page)).toBe(false);
    expect(laptop.page.url()).toBe(`${base}/auth/signin`);
    await laptop.page.locator('#signin-email').fill('forgot@example.com');
    await laptop.page.locator('#signin-password').fill(PASSWORD);
    await laptop.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect
      .poll(() => laptop.page.getByRole('alert').textContent())
      .toContain('Wrong email or password');
    await signInInBrowser(laptop.page, base, 'forgot@example.com', NEW_PASSWORD);

    // The link a second time: a page that says why, no form.
    await phone.page.goto(link);
    expect(await phone.page.getByRole('alert').textContent()).toContain('This link does not work');
    expect(await phone.page.locator('form[action="/auth/set-password"]').count()).toBe(0);
    await expectAccessible(phone.page);
    await screenshot(phone.page, 'accounts-link-used');
    expectNoTokenWritten();
  });

  it('an expired link is refused with a page that says so', async () => {
    const link = await adminLink('create-user', '--email', 'late@example.com');
    const token = new URL(link).searchParams.get('token') as string;
    const user = await t.db.storage.accounts.findUserByEmail('late@example.com');
    // The same link, its expiry moved into the past through the repository.
    const past = new Date(Date.now() - 1000);
    await t.db.storage.passwordLinks.savePasswordLink({
      tokenHash: hashToken(token),
      userId: user?.id as number,
      at: new Date(past.getTime() - 24 * 3_600_000),
      expiresAt: past,
    });
    const { page } = await newPage();
    const res = await page.goto(link);
    expect(res?.status()).toBe(404);
    expect(await page.getByRole('alert').textContent()).toContain('This link has expired');
    await expectAccessible(page);
    await screenshot(page, 'accounts-link-expired');
    expectNoTokenWritten();
  });

  it('a user changes their password on the account page; their other browser is signed out', async () => {
    const here = await newPage();
    const there = await newPage();
    await signUpInBrowser(here.page, base, 'change@example.com');
    await signInInBrowser(there.page, base, 'change@example.com');
    await here.page.getByRole('link', { name: 'Account' }).click();
    await here.page.waitForURL(`${base}/dashboard/account`);
    await expectAccessible(here.page);
    await screenshot(here.page, 'accounts-account');

    await here.page.getByLabel('Current password').fill('not my password at all');
    await here.page.getByLabel('New password').fill(NEW_PASSWORD);
    await here.page.getByRole('button', { name: 'Change password' }).click();
    await expect
      .poll(() => here.page.getByRole('alert').textContent())
      .toContain('current password is not right');
    await expectAccessible(here.page);

    await here.page.getByLabel('Current password').fill(PASSWORD);
    await here.page.getByLabel('New password').fill(NEW_PASSWORD);
    await here.page.getByRole('button', { name: 'Change password' }).click();
    await here.page.waitForURL(`${base}/dashboard/account?changed=1`);
    expect(await here.page.getByRole('status').textContent()).toContain(
      'Every other session of yours has ended',
    );
    await expectAccessible(here.page);
    await screenshot(here.page, 'accounts-password-changed');

    expect(await signedIn(there.page)).toBe(false);
    expect(await signedIn(here.page)).toBe(true);
    await signInInBrowser(there.page, base, 'change@example.com', NEW_PASSWORD);
  });

  it('sign out everywhere ends this session and the other browser’s, and says so', async () => {
    const here = await newPage();
    const there = await newPage();
    await signUpInBrowser(here.page, base, 'everywhere@example.com');
    await signInInBrowser(there.page, base, 'everywhere@example.com');
    // On a phone: the navigation with its new section and the page's forms fit the width.
    await here.page.setViewportSize({ width: 375, height: 740 });
    await here.page.goto(`${base}/dashboard/account`);
    expect(await here.page.evaluate('document.documentElement.scrollWidth > window.innerWidth')).toBe(false);
    await expectAccessible(here.page);
    await screenshot(here.page, 'accounts-account-phone');
    await here.page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await here.page.waitForURL(`${base}/auth/signin?note=everywhere`);
    expect(await here.page.getByRole('status').textContent()).toContain('You are signed out everywhere');
    await expectAccessible(here.page);
    await screenshot(here.page, 'accounts-signed-out-everywhere');
    expect(await signedIn(here.page)).toBe(false);
    expect(await signedIn(there.page)).toBe(false);
  });

  it('a GitHub-only account (no password) sets a first one on the account page', async () => {
    // An account without a password, signed in: one made by an operator, in through its link's session.
    await runAdmin(['create-user', '--email', 'nopass@example.com'], {
      databaseUrl: t.db.processUrl,
      baseUrl: base,
    });
    const user = await t.db.storage.accounts.findUserByEmail('nopass@example.com');
    const sessionId = await t.services.sessions.start(user?.id as number);
    const { context, page } = await newPage();
    await context.addCookies([{ name: 'svc_session', value: sessionId, url: base }]);
    await page.goto(`${base}/dashboard/account`);
    expect(await page.getByRole('heading', { level: 2, name: 'Set a password' }).count()).toBe(1);
    expect(await page.getByLabel('Current password').count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'accounts-first-password');
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(`${base}/dashboard/account?changed=1`);
    expect(await page.getByRole('heading', { level: 2, name: 'Change your password' }).count()).toBe(1);
  });

  it('the link, password and sign-out-everywhere forms work without JavaScript', async () => {
    const link = await adminLink('create-user', '--email', 'noscript@example.com');
    const { page } = await newPage({ javaScriptEnabled: false });
    await setPassword(page, link, NEW_PASSWORD);
    await page.waitForURL(`${base}/dashboard`);
    await page.goto(`${base}/dashboard/account`);
    await page.getByLabel('Current password').fill(NEW_PASSWORD);
    await page.getByLabel('New password').fill('a second long passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL(`${base}/dashboard/account?changed=1`);
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.waitForURL(`${base}/auth/signin?note=everywhere`);
    expect(await signedIn(page)).toBe(false);
    expectNoTokenWritten();
  });
});
