import { beforeEach, describe, expect, it } from 'vitest';
import { FakeOAuthA } from '../../test/helpers/fake-oauth.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';

const PASSWORD = 'correct horse battery';
const FORM = 'application/x-www-form-urlencoded';

/**
 * Probes of every /auth/ entry point an attacker reaches (docs/security.md, "Sign-in, sessions and
 * accounts"): where a sign-in may send the browser, which session a browser ends up with, who can
 * sign a browser out, and what a page reflects.
 */
describe('probes of the /auth/ entry points', () => {
  let t: TestApp;
  let fake: FakeOAuthA;

  beforeEach(async () => {
    fake = await FakeOAuthA.start();
    t = await startTestApp({
      oauthA: { url: fake.url, clientId: fake.clientId, clientSecret: fake.clientSecret },
    });
    return async () => {
      await t.cleanup();
      await fake.stop();
    };
  });

  const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    t.request(path, {
      headers: { 'content-type': FORM, origin: t.config.baseUrl, ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  const sessionOf = (res: Response) => /svc_session=([^;]*)/.exec(res.headers.get('set-cookie') ?? '')?.[1];

  it('never redirects off the service: next=, redirect_uri= and return_to= are ignored everywhere', async () => {
    await t.session('ada@example.com', PASSWORD);
    const evil = 'https://evil.example/x';
    const query = `next=${encodeURIComponent(evil)}&redirect_uri=${encodeURIComponent(evil)}&return_to=//evil.example`;
    const signin = await post(`/auth/signin?${query}`, {
      email: 'ada@example.com',
      password: PASSWORD,
      next: evil,
    });
    expect(signin.status).toBe(303);
    expect(signin.headers.get('location')).toBe('/dashboard');
    const signout = await post(`/auth/signout?${query}`, { next: evil });
    expect(signout.headers.get('location')).toBe('/auth/signin?note=signedout');
    const start = await t.request(`/auth/codehost-a/start?${query}`);
    const authorize = new URL(start.headers.get('location') ?? '');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${t.config.baseUrl}/auth/codehost-a/callback`);
  });

  it('gives a new session id at every sign-in, ending the one the browser carried (session fixation)', async () => {
    // The attacker's own valid session, planted in the victim's browser before the victim signs in.
    const planted = (await t.session('mallory@example.com', PASSWORD)).split('=')[1] as string;
    await t.session('ada@example.com', PASSWORD);
    const res = await post(
      '/auth/signin',
      { email: 'ada@example.com', password: PASSWORD },
      {
        cookie: `svc_session=${planted}`,
      },
    );
    expect(res.status).toBe(303);
    const issued = sessionOf(res);
    expect(issued).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(issued).not.toBe(planted);
    // The planted id no longer opens anything: the attacker cannot ride along.
    expect((await t.request('/api/account', { headers: { cookie: `svc_session=${planted}` } })).status).toBe(
      401,
    );
    // A made-up id is not adopted either.
    const madeUp = 'A'.repeat(43);
    const again = await post(
      '/auth/signin',
      { email: 'ada@example.com', password: PASSWORD },
      {
        cookie: `svc_session=${madeUp}`,
      },
    );
    expect(sessionOf(again)).not.toBe(madeUp);
  });

  it('signs out only on a same-origin POST (sign-out CSRF): another origin, no Origin, and GET change nothing', async () => {
    const cookie = await t.session('ada@example.com', PASSWORD);
    const tries = [
      await post('/auth/signout', {}, { cookie, origin: 'https://evil.example' }),
      await t.request('/auth/signout', { headers: { cookie, 'content-type': FORM }, body: '' }),
      await t.request('/auth/signout', { headers: { cookie } }),
    ];
    expect(tries.map((r) => r.status)).toEqual([403, 403, 404]);
    expect((await t.request('/api/account', { headers: { cookie } })).status).toBe(200);
  });

  it('reflects nothing a link or a form sends as markup: unknown notes, a script in the email field', async () => {
    const page = await (await t.request('/auth/signin?note=%3Cscript%3Ealert(1)%3C/script%3E')).text();
    expect(page).not.toContain('<script>alert(1)');
    expect(page).not.toContain('alert(1)');
    const res = await post('/auth/signin', {
      email: '"><script>alert(1)</script>@x.test',
      password: PASSWORD,
    });
    // Shaped like an address, so an ordinary failed sign-in whose page shows the field again, escaped.
    expect(res.status).toBe(401);
    const html = await res.text();
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;');
  });

  it('signs nobody in when the provider answers a refusal (error=access_denied) instead of a code', async () => {
    const start = await t.request('/auth/codehost-a/start');
    const state = new URL(start.headers.get('location') ?? '').searchParams.get('state') as string;
    const stateCookie = /svc_oauth_state=[^;]+/.exec(start.headers.get('set-cookie') ?? '')?.[0] as string;
    const denied = await t.request(`/auth/codehost-a/callback?error=access_denied&state=${state}`, {
      headers: { cookie: stateCookie },
    });
    expect(denied.status).toBe(400);
    expect(sessionOf(denied) ?? '').toBe('');
    expect(await denied.text()).toContain('GitHub sent no sign-in code');
  });
});
