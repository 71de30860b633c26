import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  agentAPermission,
  type BrowserSuite,
  browserTestsRun,
  expectAccessible,
  PASSWORD,
  screenshot,
  signInInBrowser,
  signUpInBrowser,
  startBrowserSuite,
} from '../helpers/browser.js';
import { FakeRegistries } from '../helpers/fake-registries.js';
import type { TestApp } from '../helpers/test-app.js';

const OLD = new Date('2020-01-01T00:00:00Z');

/**
 * Teams in the dashboard (contract 6), end to end in Debian's chromium: create a team, invite a
 * colleague who signs up through the link and accepts, the team's warn mode reaching their hook
 * calls, making an owner, leaving, and removing a member after a confirmation page.
 */
describe.skipIf(!browserTestsRun)('teams in the dashboard, in a real browser', () => {
  let browser: Browser;
  let registries: FakeRegistries;
  let t: TestApp;
  let base: string;
  let suite: BrowserSuite;
  let context: BrowserContext;
  let page: Page;
  let n = 0;
  /** Every test makes its own people and team: the suite runs in any order. */
  const fresh = (name: string) => `${name}-${++n}-${Date.now()}@example.com`;

  beforeAll(async () => {
    registries = await FakeRegistries.start();
    registries
      .addPackage('npm', 'evil-pkg', { versions: { '1.0.0': OLD } })
      .addMalware('npm', 'evil-pkg', 'MAL-2025-4243');
    suite = await startBrowserSuite({ registries: registries.urls });
    ({ t, base, browser } = suite);
  });

  afterAll(async () => {
    await suite?.stop();
    await registries?.stop();
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page = await context.newPage();
    return () => context.close();
  });

  const shot = (name: string, on = page) => screenshot(on, name);

  /** What the agent A hook answers the key's owner for installing a known malicious package. */
  const hook = (key: string) => agentAPermission(base, key, 'npm install evil-pkg');

  /** Signs up in `page` and creates a team on the Team page. */
  async function createTeam(on: Page, email: string, name: string) {
    await signUpInBrowser(on, base, email);
    await on.getByRole('link', { name: 'Team' }).click();
    await on.getByLabel('Team name').fill(name);
    await on.getByRole('button', { name: 'Create team' }).click();
    await on.waitForURL(`${base}/dashboard/team?done=created`);
  }

  /** A member of the team (added as an operator would), signed in nowhere. */
  async function memberOf(team: string) {
    const email = fresh('member');
    await t.session(email, PASSWORD);
    await t.services.accounts.addMember(team, email);
    return email;
  }

  it('a user creates a team and becomes its owner; the page fits a phone', async () => {
    await signUpInBrowser(page, base, fresh('founder'));
    await page.getByRole('link', { name: 'Team' }).click();
    expect(await page.getByRole('heading', { name: 'Create a team' }).count()).toBe(1);
    await expectAccessible(page);
    await shot('teams-create');
    // A name another team has is refused, saying so, and the form keeps what was typed.
    const taken = `taken-${n}`;
    await t.services.accounts.createTeam({ name: taken, plan: 'free', hookMode: 'block' });
    await page.getByLabel('Team name').fill(taken);
    await page.getByRole('button', { name: 'Create team' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('exists already');
    expect(await page.getByLabel('Team name').inputValue()).toBe(taken);
    await expectAccessible(page);

    const name = `Platform team ${n}`;
    await page.getByLabel('Team name').fill(name);
    await page.getByRole('button', { name: 'Create team' }).click();
    await page.waitForURL(`${base}/dashboard/team?done=created`);
    expect(await page.getByRole('status').textContent()).toContain('You are its owner');
    expect(await page.locator('tbody').first().textContent()).toContain('owner');
    await expectAccessible(page);
    await shot('teams-created');

    await memberOf(name);
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(`${base}/dashboard/team`);
    await expectAccessible(page);
    await shot('teams-owner-phone');
    // Nothing cut off: the page is no wider than the screen, and the members' rows reflow with the
    // owner's buttons in sight.
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    expect(await page.getByRole('button', { name: /^Remove member-/ }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: /^Make member-.* an owner$/ }).isVisible()).toBe(true);
  });

  it('invites a colleague who signs up through the link and accepts; warn mode then answers their hook with ask', async () => {
    const team = `crew-${n + 1}`;
    await createTeam(page, fresh('owner'), team);
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    const link = (await page.locator('#new-link').textContent())?.trim() ?? '';
    expect(link).toMatch(new RegExp(`^${base}/dashboard/join\\?token=[A-Za-z0-9_-]{43}$`));
    await page.locator('button[data-copy="new-link"]').click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(link);
    await expectAccessible(page);
    await shot('teams-invitation-link');
    await page.goto(`${base}/dashboard/team`);
    expect(await page.content()).not.toContain(link); // shown once
    const revokeButtons = page.getByRole('button', { name: /^Revoke invitation/ });
    expect(await revokeButtons.count()).toBe(1);
    // A second link, revoked at once (the newest is listed first); the first stays open.
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    const second = (await page.locator('#new-link').textContent())?.trim() ?? '';
    await page.goto(`${base}/dashboard/team`);
    expect(await revokeButtons.count()).toBe(2);
    await revokeButtons.first().click();
    await page.waitForURL(`${base}/dashboard/team?done=revoked`);
    expect(await page.getByRole('status').textContent()).toContain('Invitation revoked');
    expect(await revokeButtons.count()).toBe(1);
    await expectAccessible(page);
    await shot('teams-invitation-revoked');

    // The colleague, signed out in a browser of their own, opens the link and signs up.
    const colleagueEmail = fresh('colleague');
    const other = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    try {
      const colleague = await other.newPage();
      await colleague.goto(link);
      expect(colleague.url()).toBe(`${base}/auth/signin?note=invite`);
      expect(await colleague.getByRole('status').textContent()).toContain('team invitation');
      await expectAccessible(colleague);
      await shot('teams-invitation-signin', colleague);
      await colleague.locator('#signup-email').fill(colleagueEmail);
      await colleague.locator('#signup-password').fill(PASSWORD);
      await colleague.getByRole('button', { name: 'Create account' }).click();
      await colleague.waitForURL(`${base}/dashboard/join`);
      expect(await colleague.textContent('main')).toContain(`invited you to join ${team}`);
      await expectAccessible(colleague);
      await shot('teams-invitation-accept', colleague);

      // Outside any team the hooks block by default: a malicious package is denied.
      const key = await t.services.accounts.issueKey(colleagueEmail, 'agent');
      expect(await hook(key)).toBe('deny');

      await colleague.getByRole('button', { name: `Accept and join ${team}` }).click();
      await colleague.waitForURL(`${base}/dashboard/team?done=joined`);
      expect(await colleague.getByRole('status').textContent()).toContain('You joined the team');
      expect(await colleague.textContent('main')).toContain(colleagueEmail);
      await expectAccessible(colleague);
      await shot('teams-joined', colleague);
      expect(await hook(key)).toBe('deny'); // the team is in block mode

      await page.goto(`${base}/dashboard/team`);
      await page.getByLabel(/^Warn/).check();
      await page.getByRole('button', { name: 'Save mode' }).click();
      await page.waitForURL(`${base}/dashboard/team?saved=1`);
      expect(await hook(key)).toBe('ask');

      // The owner makes the colleague an owner; the colleague's page then has the owner's tools.
      await page.getByRole('button', { name: `Make ${colleagueEmail} an owner` }).click();
      await page.waitForURL(`${base}/dashboard/team?done=owner`);
      expect(await page.getByRole('status').textContent()).toContain('now an owner');
      await expectAccessible(page);
      await shot('teams-made-owner');
      await colleague.reload();
      expect(await colleague.getByRole('button', { name: 'Create invitation link' }).count()).toBe(1);
      // The revoked link says so; the used one too.
      const revokedPage = await other.newPage();
      expect((await revokedPage.goto(second))?.status()).toBe(404);
      expect(await revokedPage.getByRole('alert').textContent()).toContain('was revoked');
      const again = await other.newPage();
      const reopened = await again.goto(link);
      expect(reopened?.status()).toBe(404);
      expect(await again.getByRole('alert').textContent()).toContain('used already');
      await expectAccessible(again);
      await shot('teams-invitation-used', again);
    } finally {
      await other.close();
    }
  });

  it('a member leaves after confirming, and their hook calls are blocked again', async () => {
    const team = `leavers-${n + 1}`;
    await t.services.accounts.createTeam({ name: team, plan: 'free', hookMode: 'warn' });
    const ownerEmail = fresh('owner');
    await t.session(ownerEmail, PASSWORD);
    await t.services.accounts.addMember(team, ownerEmail, 'owner');
    const email = await memberOf(team);
    const key = await t.services.accounts.issueKey(email, 'agent');
    expect(await hook(key)).toBe('ask');

    await signInInBrowser(page, base, email);
    await page.getByRole('link', { name: 'Team' }).click();
    expect(await page.getByRole('button', { name: 'Create invitation link' }).count()).toBe(0);
    await expectAccessible(page);
    await shot('teams-member');
    await page.getByRole('button', { name: 'Leave team' }).click();
    await page.waitForURL(/\/dashboard\/team\/leave\??$/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Leave ${team}?`);
    await expectAccessible(page);
    await shot('teams-leave-confirm');
    await page.getByRole('button', { name: `Leave ${team}` }).click();
    await page.waitForURL(`${base}/dashboard/team?done=left`);
    expect(await page.getByRole('status').textContent()).toContain('You left the team');
    expect(await page.getByRole('heading', { name: 'Create a team' }).count()).toBe(1);
    await expectAccessible(page);
    await shot('teams-left');
    expect(await hook(key)).toBe('deny');
  });

  it('the owner removes a member after a confirmation page (Cancel keeps them)', async () => {
    const team = `removers-${n + 1}`;
    const ownerEmail = fresh('owner');
    await createTeam(page, ownerEmail, team);
    const email = await memberOf(team);
    await page.goto(`${base}/dashboard/team`);
    await page.getByRole('button', { name: `Remove ${email}`, exact: true }).click();
    await page.waitForURL(/\/dashboard\/team\/remove\?member=\d+$/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Remove ${email} from ${team}?`);
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.waitForURL(`${base}/dashboard/team`);
    expect(await page.textContent('main')).toContain(email);

    await page.getByRole('button', { name: `Remove ${email}`, exact: true }).click();
    await page.waitForURL(/\/dashboard\/team\/remove\?member=\d+$/);
    await expectAccessible(page);
    await shot('teams-remove-confirm');
    await page.getByRole('button', { name: `Remove ${email}` }).click();
    await page.waitForURL(`${base}/dashboard/team?done=removed`);
    expect(await page.getByRole('status').textContent()).toContain('removed');
    expect(await page.textContent('main')).not.toContain(email);
    await expectAccessible(page);
    await shot('teams-removed');
  });
});
