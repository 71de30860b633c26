import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { freePort } from './service-process.js';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app.js';

/** Debian's chromium (apt-get install chromium); SVC_CHROMIUM points elsewhere. */
export const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI !== 'true') {
  console.warn(`chromium not found at ${CHROMIUM}: browser tests skipped (apt-get install chromium)`);
}
/** Browser tests run when chromium is there, and always in CI (where its absence is a failure). */
export const browserTestsRun = haveChromium || process.env.CI === 'true';

/** Where screenshots go: look at them. */
export const RESULTS = join(import.meta.dirname, '..', '..', 'test-results');

/** A password the sign-up form accepts (12+ characters, not a well-known one). */
export const PASSWORD = 'correct horse battery';

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(RESULTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** The service listening on loopback under its own base URL (cookies and Origin checks hold), and a browser. */
export interface BrowserSuite {
  t: TestApp;
  base: string;
  browser: Browser;
  /** Closes the browser, stops listening and drops the database. */
  stop(): Promise<void>;
}

/**
 * What every browser suite starts with. Sign-in is limited to 1,000 a minute per IP unless the
 * suite says otherwise: a suite signs many people in from one address.
 */
export async function startBrowserSuite(
  options: Omit<TestAppOptions, 'baseUrl'> = {},
): Promise<BrowserSuite> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await startTestApp({
    ...options,
    baseUrl: base,
    rateLimits: { auth: 1000, ...options.rateLimits },
  });
  try {
    const { close } = await t.listen({ port });
    const browser = await launchBrowser().catch(async (e: unknown) => {
      await close();
      throw e;
    });
    return {
      t,
      base,
      browser,
      async stop() {
        await browser.close();
        await close();
        await t.cleanup();
      },
    };
  } catch (e) {
    await t.cleanup();
    throw e;
  }
}

/** What agent A's hook answers `key`'s owner for running `command` (the answer must be a 200). */
export async function agentAPermission(base: string, key: string, command: string): Promise<string> {
  const res = await fetch(`${base}/api/hooks/agent-a`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ command, hook_event_name: 'beforeShellExecution' }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { permission: string }).permission;
}

/** No serious or critical accessibility violation on the page as it is now. */
export async function expectAccessible(page: Page): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

/** A full-page screenshot in test-results/NAME.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(RESULTS, `${name}.png`), fullPage: true });
}

/** Signs up through the sign-in page's form and lands on the overview. */
export async function signUpInBrowser(
  page: Page,
  base: string,
  email: string,
  password = PASSWORD,
): Promise<void> {
  await page.goto(`${base}/`);
  await page.getByLabel('Email').nth(1).fill(email);
  await page.getByLabel('Password').nth(1).fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(`${base}/dashboard`);
}

/** Signs in through the sign-in page's password form and lands on the overview. */
export async function signInInBrowser(
  page: Page,
  base: string,
  email: string,
  password = PASSWORD,
): Promise<void> {
  await page.goto(`${base}/auth/signin`);
  await page.locator('#signin-email').fill(email);
  await page.locator('#signin-password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${base}/dashboard`);
}
