import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { FakeRegistries } from '../helpers/fake-registries.js';
import { fakeCloudKeyId } from '../helpers/fake-secrets.js';
import { GitHttpServer } from '../helpers/git-http-server.js';
import { TestRepo } from '../helpers/git-repo.js';
import { sleep } from '../helpers/load.js';
import type { TestApp } from '../helpers/test-app.js';

const OLD = new Date('2020-01-01T00:00:00Z');
/** The narrowest phone the dashboard is held to (contract 6). */
const PHONE = { width: 375, height: 812 };

/**
 * What is cut off on the page as it is now: any element reaching past the viewport's sides that is
 * not inside a scroll container that fits the viewport and shows its edge (a border), and any
 * element that hides overflowing content of its own. Elements parked off-screen on purpose (the
 * skip link) and visually hidden ones (1 px, clipped) are not content.
 */
async function cutOff(page: Page): Promise<{ pageWidth: number; viewport: number; offenders: string[] }> {
  return page.evaluate(CUT_OFF_SCRIPT) as Promise<{
    pageWidth: number;
    viewport: number;
    offenders: string[];
  }>;
}

/** Run in the page (plain JavaScript: the tests' TypeScript has no DOM types). */
const CUT_OFF_SCRIPT = `(() => {
  const viewport = document.documentElement.clientWidth;
  const describe = (el) => {
    const r = el.getBoundingClientRect();
    const text = (el.textContent ?? '').trim().replace(/\\s+/g, ' ').slice(0, 40);
    const classes = typeof el.className === 'string' && el.className ? '.' + el.className.replace(/ /g, '.') : '';
    return el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + classes +
      ' [' + Math.round(r.left) + '..' + Math.round(r.right) + '] "' + text + '"';
  };
  const visuallyHidden = (el) => {
    const r = el.getBoundingClientRect();
    return r.width <= 1 || r.height <= 1;
  };
  const offScreenOnPurpose = (el) => {
    const r = el.getBoundingClientRect();
    return getComputedStyle(el).position === 'absolute' && (r.right <= 0 || r.left >= viewport);
  };
  const visibleScroller = (el) => {
    for (let p = el.parentElement; p !== null; p = p.parentElement) {
      const style = getComputedStyle(p);
      if (style.overflowX === 'auto' || style.overflowX === 'scroll') {
        const r = p.getBoundingClientRect();
        const edged = Number.parseFloat(style.borderRightWidth) > 0;
        return r.left >= -0.5 && r.right <= viewport + 0.5 && edged;
      }
    }
    return false;
  };
  const offenders = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if ((r.width === 0 && r.height === 0) || visuallyHidden(el) || offScreenOnPurpose(el)) continue;
    const outside = r.left < -0.5 || r.right > viewport + 0.5;
    if (outside && !visibleScroller(el)) offenders.push(describe(el));
    const style = getComputedStyle(el);
    // Text runs past its own box (text is no element of its own: its box's scroll width shows it).
    if (style.overflowX === 'visible' && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1 && !visibleScroller(el))
      offenders.push(describe(el) + ' overflows its box');
    const hides = style.overflowX === 'hidden' || style.overflowX === 'clip' || style.textOverflow === 'ellipsis';
    if (hides && el.scrollWidth > el.clientWidth + 1) offenders.push(describe(el) + ' hides its overflow');
  }
  return { pageWidth: document.documentElement.scrollWidth, viewport, offenders };
})()`;

describe.skipIf(!browserTestsRun)('every page on a 375-px phone', () => {
  let browser: Browser;
  let registries: FakeRegistries;
  let git: GitHttpServer;
  let t: TestApp;
  let base: string;
  let suite: BrowserSuite;
  let page: Page;
  let scanPath: string;
  let keyPrefix: string;
  let setPasswordPath: string;
  let joinPath: string;

  beforeAll(async () => {
    [registries, git] = await Promise.all([FakeRegistries.start(), GitHttpServer.start()]);
    const repo = new TestRepo();
    repo.commitFiles(
      {
        'config/a-rather-long-directory-name/with-a-deeply-nested-settings-file.env': `AWS_ACCESS_KEY_ID=${fakeCloudKeyId(7)}\n`,
      },
      'deploy settings',
    );
    const repoUrl = git.publish(
      repo.dir,
      'octo-organisation-with-a-long-name',
      'a-repository-with-a-long-name',
    );
    repo.cleanup();
    registries
      .addPackage('npm', 'lodash', { versions: { '4.17.21': OLD } })
      .addPackage('npm', 'evil-pkg', { versions: { '1.0.0': OLD } })
      .addMalware('npm', 'evil-pkg', 'MAL-2025-4242')
      // A registry that fails for this one: the install is allowed, noted as not fully checked.
      .addPackage('npm', 'flaky-pkg', { versions: { '1.0.0': OLD } })
      .setBehavior('npm', 500, 'flaky-pkg');
    suite = await startBrowserSuite({
      registries: registries.urls,
      env: { SVC_SCAN_HOSTS: `github.com,${git.origin}` },
    });
    ({ t, base, browser } = suite);

    // One user with something on every page: keys, hook verdicts, a finished scan with a finding, a team.
    const email = 'a.person.with.a.long.address@example-company.example.com';
    const context = await browser.newContext({ viewport: PHONE });
    page = await context.newPage();
    await signUpInBrowser(page, base, email);
    await t.services.accounts.createTeam({ name: 'platform-security-team', plan: 'free', hookMode: 'block' });
    await t.services.accounts.addMember('platform-security-team', email, 'owner');
    const key = await t.services.accounts.issueKey(email, 'continuous integration on the main pipeline');
    keyPrefix = key.slice(0, 12);
    await t.session('colleague.with.a.long.name@example-company.example.com', PASSWORD);
    await t.services.accounts.addMember(
      'platform-security-team',
      'colleague.with.a.long.name@example-company.example.com',
    );
    for (const command of [
      'npm install evil-pkg lodash@4.17.21',
      'npm install flaky-pkg',
      'npm install lodash',
    ]) {
      await agentAPermission(base, key, command);
    }
    // An invitation link (open on the team page; its own page shown to the owner opening it).
    await page.goto(`${base}/dashboard/team`);
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    joinPath = new URL(((await page.locator('#new-link').textContent()) ?? '').trim()).pathname;
    joinPath += new URL(((await page.locator('#new-link').textContent()) ?? '').trim()).search;
    // An operator-made user's one-time link (opening it uses nothing up).
    await t.services.accounts.createUser({
      email: 'operator.made.user.with.a.long.name@example-company.example.com',
      plan: 'free',
    });
    const link = await t.services.passwordLinks.issue(
      'operator.made.user.with.a.long.name@example-company.example.com',
    );
    setPasswordPath = `/auth/set-password?token=${link.token}`;
    const started = await fetch(`${base}/api/scans`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: repoUrl }),
    });
    const { id } = (await started.json()) as { id: string };
    scanPath = `/dashboard/scans/${id}`;
    const worker = await t.services.startScanWorker({ pollMs: 50 });
    try {
      for (let status = ''; status !== 'done'; await sleep(100)) {
        const res = await fetch(`${base}/api/scans/${id}`, { headers: { authorization: `Bearer ${key}` } });
        status = ((await res.json()) as { status: string }).status;
        if (status === 'failed') throw new Error('the scan failed');
      }
    } finally {
      await worker.stop();
    }
  });

  afterAll(async () => {
    await suite?.stop();
    await Promise.all([registries?.stop(), git?.stop()]);
  });

  const pages: [name: string, path: () => string][] = [
    ['overview', () => '/dashboard'],
    ['keys', () => '/dashboard/keys'],
    ['keys-revoke', () => `/dashboard/keys/revoke?prefix=${keyPrefix}`],
    ['scans', () => '/dashboard/scans'],
    ['scan', () => scanPath],
    ['team', () => '/dashboard/team'],
    ['setup', () => '/dashboard/setup'],
    ['account', () => '/dashboard/account'],
    ['set-password', () => setPasswordPath],
    ['join', () => joinPath],
    ['not-found', () => '/no/such/page'],
  ];

  it.each(pages)('%s: nothing is cut off, and it passes axe', async (name, path) => {
    await page.goto(`${base}${path()}`);
    // Open what is collapsed, so that it is measured too.
    for (const summary of await page.locator('details:not([open]) > summary').all()) await summary.click();
    const { pageWidth, viewport, offenders } = await cutOff(page);
    await screenshot(page, `phone-${name}`);
    expect(offenders).toEqual([]);
    expect(pageWidth).toBeLessThanOrEqual(viewport);
    await expectAccessible(page);
  });

  it('the sign-in page, signed out', async () => {
    const context = await browser.newContext({ viewport: PHONE });
    const signedOut = await context.newPage();
    try {
      await signedOut.goto(`${base}/auth/signin`);
      const { pageWidth, viewport, offenders } = await cutOff(signedOut);
      await screenshot(signedOut, 'phone-signin');
      expect(offenders).toEqual([]);
      expect(pageWidth).toBeLessThanOrEqual(viewport);
    } finally {
      await context.close();
    }
  });

  it('the check itself finds a table cut off at phone width (it can fail)', async () => {
    // The same signed-in browser, allowed to add a stylesheet of the test's own.
    const context = await browser.newContext({
      viewport: PHONE,
      bypassCSP: true,
      storageState: await page.context().storageState(),
    });
    const old = await context.newPage();
    try {
      await old.goto(`${base}/dashboard/keys`);
      // The layout before this issue: a wide table in a wrapper that scrolls without showing it does.
      await old.addStyleTag({
        content:
          'table.data tbody, table.data tr, table.data td { display: revert !important; } ' +
          'table.data { display: block !important; overflow-x: auto; } ' +
          'table.data thead { position: static !important; width: auto !important; height: auto !important; clip-path: none !important; } ' +
          'table.data td { padding: .5rem !important; white-space: nowrap; } table.data td::before { content: none !important; }',
      });
      const { offenders } = await cutOff(old);
      expect(offenders.join('\n')).toMatch(/Revoke/);
    } finally {
      await context.close();
    }
  });
});
