import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../test/helpers/admin.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { hashToken } from '../auth/session-ids.js';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'purple otter kettle drum';
const FORM = 'application/x-www-form-urlencoded';

describe('one-time password links, the account page and sign out everywhere', () => {
  let t: TestApp;
  let clock: Date;

  beforeEach(async () => {
    // svc admin runs on the real clock (as the CLI does); the app's starts there and is moved by hand.
    clock = new Date();
    t = await startTestApp({ now: () => clock, baseUrl: 'https://svc.example' });
    return () => t.cleanup();
  });

  const origin = () => ({ origin: t.config.baseUrl });
  const form = (
    path: string,
    fields: Record<string, string>,
    options: { cookie?: string; headers?: Record<string, string>; ip?: string } = {},
  ) =>
    t.request(path, {
      ip: options.ip,
      headers: {
        'content-type': FORM,
        ...(options.headers ?? origin()),
        ...(options.cookie === undefined ? {} : { cookie: options.cookie }),
      },
      body: new URLSearchParams(fields).toString(),
    });
  const admin = (...args: string[]) =>
    runAdmin(args, { databaseUrl: t.db.processUrl, baseUrl: t.config.baseUrl });
  /** The token of a link printed by svc admin. */
  const tokenOf = (link: string) => new URL(link.trim()).searchParams.get('token') as string;
  const cookieOf = (res: Response) =>
    /__Host-svc_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];
  /** A signed-in session through the real sign-in form (on https the cookie is __Host-svc_session). */
  const signIn = async (email: string, password: string) => {
    const res = await form('/auth/signin', { email, password });
    return { status: res.status, cookie: cookieOf(res) };
  };
  const dashboard = (cookie: string, path = '/dashboard') => t.request(path, { headers: { cookie } });

  it('create-user prints a link alone on stdout; the user sets a password there and is signed in', async () => {
    const created = await admin('create-user', '--email', 'New@Example.com', '--plan', 'paid');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^https:\/\/svc\.example\/auth\/set-password\?token=[A-Za-z0-9_-]{43}\n$/);
    expect(created.stderr).toContain('created user new@example.com (paid)');
    expect(created.stderr).toContain('valid 24 h and works once');
    const token = tokenOf(created.stdout);
    const link = new URL(created.stdout.trim());

    const page = await t.request(`${link.pathname}${link.search}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('A password for new@example.com');
    expect(html).toContain('action="/auth/set-password"');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('same-origin');

    // Another site's post, and a refused password: nothing set, the link still works.
    expect(
      (
        await form(
          '/auth/set-password',
          { token, password: NEW_PASSWORD },
          { headers: { origin: 'https://evil.example' } },
        )
      ).status,
    ).toBe(403);
    const weak = await form('/auth/set-password', { token, password: 'short' });
    expect(weak.status).toBe(400);
    expect(await weak.text()).toContain('at least 12 characters');
    expect(await t.db.storage.credentials.findPasswordByEmail('new@example.com')).toMatchObject({
      passwordHash: null,
    });

    const set = await form('/auth/set-password', { token, password: NEW_PASSWORD });
    expect(set.status).toBe(303);
    expect(set.headers.get('location')).toBe('/dashboard');
    const cookie = cookieOf(set) as string;
    expect((await dashboard(cookie)).status).toBe(200);
    expect((await signIn('new@example.com', NEW_PASSWORD)).status).toBe(303);

    // Used: the link is refused with a page that says so, no form, and no exception.
    for (const again of [
      await t.request(`/auth/set-password?token=${token}`),
      await form('/auth/set-password', { token, password: 'another long passphrase' }),
    ]) {
      expect(again.status).toBe(404);
      const text = await again.text();
      expect(text).toContain('This link does not work: it was used already');
      expect(text).not.toContain('<form method="post" action="/auth/set-password"');
    }
    expect(t.logs.join('\n')).toContain('/auth/set-password');
    expect(t.logs.join('\n')).not.toContain(token);
  });

  it('reset-password: a new link replaces the old, ends old sessions and the old password when used', async () => {
    const cookie = await t.session('forgot@example.com', PASSWORD);
    const first = tokenOf((await admin('reset-password', '--email', 'FORGOT@example.com')).stdout);
    const reset = await admin('reset-password', '--email', 'forgot@example.com');
    expect(reset.code).toBe(0);
    expect(reset.stdout.trim().split('\n')).toHaveLength(1);
    expect(reset.stderr).toMatch(/valid 24 h and works once/);
    const second = tokenOf(reset.stdout);
    // Until the link is used, nothing changes.
    expect((await dashboard(cookie.replace('svc_session', '__Host-svc_session'))).status).toBe(200);

    expect((await t.request(`/auth/set-password?token=${first}`)).status).toBe(404);
    expect((await form('/auth/set-password', { token: second, password: NEW_PASSWORD })).status).toBe(303);
    const old = await dashboard(cookie.replace('svc_session', '__Host-svc_session'));
    expect(old.status).toBe(303);
    expect(old.headers.get('location')).toBe('/auth/signin');
    expect((await signIn('forgot@example.com', PASSWORD)).status).toBe(401);
    expect((await signIn('forgot@example.com', NEW_PASSWORD)).status).toBe(303);
  });

  it('refuses an unknown email with one line and exit 2, and an expired or unknown link with a page', async () => {
    const unknown = await admin('reset-password', '--email', 'nobody@example.com');
    expect(unknown).toEqual({ code: 2, stdout: '', stderr: 'svc: user not found: nobody@example.com\n' });
    expect((await admin('reset-password')).stderr).toMatch(/--email is required/);

    const token = tokenOf((await admin('create-user', '--email', 'late@example.com')).stdout);
    clock = new Date(Date.now() + 24 * 3_600_000);
    const expired = await t.request(`/auth/set-password?token=${token}`);
    expect(expired.status).toBe(404);
    expect(await expired.text()).toContain('This link has expired');
    expect((await form('/auth/set-password', { token, password: NEW_PASSWORD })).status).toBe(404);
    for (const path of [
      '/auth/set-password',
      '/auth/set-password?token=',
      '/auth/set-password?token=%00%ff',
      `/auth/set-password?token=${'a'.repeat(5000)}`,
    ]) {
      const res = await t.request(path);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain('This link does not work');
    }
    expect(await t.db.storage.credentials.findPasswordByEmail('late@example.com')).toMatchObject({
      passwordHash: null,
    });
  });

  it('changes the password on the account page: the other session ends, this one goes on with a new id', async () => {
    await t.session('ch@example.com', PASSWORD);
    const here = (await signIn('ch@example.com', PASSWORD)).cookie as string;
    const there = (await signIn('ch@example.com', PASSWORD)).cookie as string;

    const page = await dashboard(here, '/dashboard/account');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Change your password');
    expect(html).toMatch(/<a href="\/dashboard\/account" aria-current="page">Account<\/a>/);

    const wrong = await form(
      '/dashboard/account/password',
      { current: 'not my password', password: NEW_PASSWORD },
      { cookie: here },
    );
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('The current password is not right.');
    const cross = await form(
      '/dashboard/account/password',
      { current: PASSWORD, password: NEW_PASSWORD },
      { cookie: here, headers: { origin: 'https://evil.example' } },
    );
    expect(cross.status).toBe(403);

    const changed = await form(
      '/dashboard/account/password',
      { current: PASSWORD, password: NEW_PASSWORD },
      { cookie: here },
    );
    expect(changed.status).toBe(303);
    expect(changed.headers.get('location')).toBe('/dashboard/account?changed=1');
    const rotated = cookieOf(changed) as string;
    expect(rotated).not.toBe(here);
    const after = await dashboard(rotated, '/dashboard/account?changed=1');
    expect(await after.text()).toContain('Every other session of yours has ended');
    for (const old of [here, there]) expect((await dashboard(old)).status).toBe(303);
    expect((await signIn('ch@example.com', PASSWORD)).status).toBe(401);
    expect((await signIn('ch@example.com', NEW_PASSWORD)).status).toBe(303);
  });

  it('counts wrong current passwords against the account: the 11th try is refused, sign-in too', async () => {
    await t.session('guess@example.com', PASSWORD);
    const cookie = (await signIn('guess@example.com', PASSWORD)).cookie as string;
    for (let i = 0; i < 10; i++) {
      const res = await form(
        '/dashboard/account/password',
        { current: `guess number ${i}`, password: NEW_PASSWORD },
        { cookie, ip: '198.51.100.7' },
      );
      expect(res.status).toBe(401);
    }
    const refused = await form(
      '/dashboard/account/password',
      { current: PASSWORD, password: NEW_PASSWORD },
      { cookie, ip: '198.51.100.8' },
    );
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain('Too many sign-in attempts for this email');
    expect((await signIn('guess@example.com', PASSWORD)).status).toBe(429);
  });

  it('signs out everywhere: every session ends and the sign-in page says so', async () => {
    await t.session('all@example.com', PASSWORD);
    const here = (await signIn('all@example.com', PASSWORD)).cookie as string;
    const there = (await signIn('all@example.com', PASSWORD)).cookie as string;
    const cross = await form(
      '/dashboard/account/signout-everywhere',
      {},
      { cookie: here, headers: { origin: 'https://evil.example' } },
    );
    expect(cross.status).toBe(403);
    expect((await dashboard(there)).status).toBe(200);

    const res = await form('/dashboard/account/signout-everywhere', {}, { cookie: here });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/auth/signin?note=everywhere');
    expect(res.headers.get('set-cookie')).toMatch(/__Host-svc_session=;.*Max-Age=0/);
    for (const old of [here, there]) expect((await dashboard(old)).status).toBe(303);
    expect(await (await t.request('/auth/signin?note=everywhere')).text()).toContain(
      'You are signed out everywhere',
    );
  });

  it('writes no link token to the database files or the log', async () => {
    const tokens = [
      tokenOf((await admin('create-user', '--email', 'quiet@example.com')).stdout),
      tokenOf((await admin('reset-password', '--email', 'quiet@example.com')).stdout),
    ];
    await t.request(`/auth/set-password?token=${tokens[1]}`);
    await form('/auth/set-password', { token: tokens[1] as string, password: NEW_PASSWORD });
    const dir = dirname(t.db.url.slice('sqlite:'.length));
    const files = readdirSync(dir).map((f) => readFileSync(`${dir}/${f}`).toString('latin1'));
    expect(files.length).toBeGreaterThan(0);
    // The check sees what it looks for: the hash of the used link was there, the password's hash is.
    expect(files.some((f) => f.includes('$argon2id$'))).toBe(true);
    for (const token of tokens) {
      expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
      for (const content of [...files, t.logs.join('\n')]) expect(content.includes(token)).toBe(false);
    }
  });
});

describe('the account page forms are rate-limited per IP like sign-in', () => {
  it('refuses the 3rd post a minute from one address with auth: 2', async () => {
    const t = await startTestApp({ rateLimits: { auth: 2 } });
    try {
      const cookie = await t.session('rl@example.com', PASSWORD);
      const post = () =>
        t.request('/dashboard/account/password', {
          ip: '203.0.113.9',
          headers: { 'content-type': FORM, origin: t.config.baseUrl, cookie },
          body: new URLSearchParams({ current: 'wrong one here', password: NEW_PASSWORD }).toString(),
        });
      expect((await post()).status).toBe(401);
      expect((await post()).status).toBe(401);
      expect((await post()).status).toBe(429);
      // Pages are not limited.
      expect((await t.request('/dashboard/account', { ip: '203.0.113.9', headers: { cookie } })).status).toBe(
        200,
      );
    } finally {
      await t.cleanup();
    }
  });
});
