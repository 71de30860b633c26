import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { PassThrough } from 'node:stream';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REDIS_URL, redisAvailable } from '../../test/helpers/databases.js';
import { FakeOAuthA } from '../../test/helpers/fake-oauth.js';
import { INVISIBLE_CHARACTERS } from '../../test/helpers/invisible-characters.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { createApp } from '../app/app.js';
import { hashToken } from '../auth/session-ids.js';
import { createServices } from '../cli/create-services.js';
import { createLogger } from '../server/logger.js';

const PASSWORD = 'correct horse battery';
const FORM = 'application/x-www-form-urlencoded';

describe('sign-in, sessions and the dashboard pages', () => {
  let t: TestApp;
  let clock: Date;
  let fake: FakeOAuthA;

  beforeEach(async () => {
    clock = new Date('2026-03-10T12:00:00Z');
    fake = await FakeOAuthA.start();
    t = await startTestApp({
      now: () => clock,
      oauthA: { url: fake.url, clientId: fake.clientId, clientSecret: fake.clientSecret },
    });
    return async () => {
      await t.cleanup();
      await fake.stop();
    };
  });

  const origin = () => ({ origin: t.config.baseUrl });
  const form = (path: string, fields: Record<string, string>, headers: Record<string, string> = origin()) =>
    t.request(path, {
      headers: { 'content-type': FORM, ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  const users = async () => (await t.db.storage.credentials.findPasswordByEmail('ada@example.com')) !== null;

  it('signs up with a session cookie that is HttpOnly, SameSite=Lax and 30 days long, stored hashed', async () => {
    const res = await form('/auth/signup', { email: 'Ada@Example.com', password: PASSWORD });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard');
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^svc_session=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).toContain('Max-Age=2592000');
    expect(setCookie).not.toContain('Secure');
    const cookie = /svc_session=[^;]+/.exec(setCookie)?.[0] as string;
    const page = await t.request('/dashboard', { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('ada@example.com');
    expect(html).toContain('CI runs in 2026-03');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('writes last seen at most once a minute, and sends a signed-in visitor of the sign-in page on', async () => {
    const cookie = await t.session('ada@example.com', PASSWORD);
    const idHash = hashToken(cookie.split('=')[1] as string);
    const lastSeen = async () =>
      (await t.db.storage.sessions.findSessionOwner(idHash))?.session.lastSeenAt.getTime();
    const signedInAt = clock.getTime();
    clock = new Date(signedInAt + 30_000);
    expect((await t.request('/dashboard', { headers: { cookie } })).status).toBe(200);
    expect(await lastSeen()).toBe(signedInAt);
    clock = new Date(signedInAt + 61_000);
    expect((await t.request('/dashboard/setup', { headers: { cookie } })).status).toBe(200);
    expect(await lastSeen()).toBe(signedInAt + 61_000);
    const signin = await t.request('/auth/signin', { headers: { cookie } });
    expect(signin.status).toBe(303);
    expect(signin.headers.get('location')).toBe('/dashboard');
  });

  it('refuses bad page input with a message and changes nothing: a foreign prefix, a member switching the mode', async () => {
    const cookie = await t.session('ada@example.com', PASSWORD);
    const bobKey = await t.userWithKey('bob@example.com', 'free', { name: 'crew', plan: 'free' });
    await t.services.accounts.addMember('crew', 'ada@example.com');
    const revoke = await form(
      '/dashboard/keys/revoke',
      { prefix: bobKey.slice(0, 12), confirm: '1' },
      { ...origin(), cookie },
    );
    expect(revoke.status).toBe(404);
    expect(await revoke.text()).toContain(`You have no active key ${bobKey.slice(0, 12)}.`);
    expect((await t.request('/api/account', { key: bobKey })).status).toBe(200);
    // Nor is another's key named on the confirmation page.
    const confirm = await t.request(`/dashboard/keys/revoke?prefix=${bobKey.slice(0, 12)}`, {
      headers: { cookie },
    });
    expect(confirm.status).toBe(404);
    expect(await confirm.text()).not.toContain('Revoke the key');
    const mode = await form('/dashboard/team/mode', { mode: 'warn' }, { ...origin(), cookie });
    expect(mode.status).toBe(403);
    expect(await mode.text()).toContain('Only a team owner can change the hook mode.');
    expect((await t.db.storage.accounts.findTeamByName('crew'))?.hookMode).toBe('block');
  });

  it('marks the cookie Secure when the service is served over https', async () => {
    const https = await startTestApp({ baseUrl: 'https://svc.example.com' });
    try {
      const res = await https.request('/auth/signup', {
        headers: { 'content-type': FORM, origin: 'https://svc.example.com' },
        body: new URLSearchParams({ email: 'ada@example.com', password: PASSWORD }).toString(),
      });
      expect(res.status).toBe(303);
      expect(res.headers.get('set-cookie')).toContain('Secure');
    } finally {
      await https.cleanup();
    }
  });

  it('refuses a malformed email and a short password with a clear message, creating nothing', async () => {
    const bad = await form('/auth/signup', { email: 'ada.example.com', password: PASSWORD });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Enter a valid email address');
    const short = await form('/auth/signup', { email: 'ada@example.com', password: 'short pass' });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain('at least 12 characters');
    expect(await users()).toBe(false);
    expect(bad.headers.get('set-cookie')).toBeNull();
  });

  it('refuses emails holding invisible, control or formatting characters at sign-up and sign-in', async () => {
    await t.session('ada@example.com', PASSWORD);
    // A lone surrogate cannot cross HTTP (a form encodes it as U+FFFD); the service test covers it.
    const characters = INVISIBLE_CHARACTERS.filter(([name]) => name !== 'lone surrogate');
    let n = 0;
    for (const [name, ch] of characters) {
      for (const path of ['/auth/signup', '/auth/signin']) {
        // Each from its own address: this is about the email, not the per-IP limit.
        const res = await t.request(path, {
          ip: `198.51.100.${++n}`,
          headers: { 'content-type': FORM, ...origin() },
          body: new URLSearchParams({ email: `ada${ch}@example.com`, password: PASSWORD }).toString(),
        });
        expect(res.status, `${name} ${path}`).toBe(400);
        expect(res.headers.get('set-cookie'), name).toBeNull();
        expect(await res.text(), name).toContain('invisible, control or formatting character');
      }
    }
    // A decomposed and a composed address are one account; case does not matter.
    await t.session('Jose\u0301@Example.com', PASSWORD);
    expect(await t.session('JOSÉ@example.com', PASSWORD, true)).toMatch(/^svc_session=/);
    expect((await t.db.storage.accounts.findUserByEmail('josé@example.com'))?.email).toBe('josé@example.com');
  });

  describe('attempts per account', () => {
    afterEach(() => {
      vi.useRealTimers();
    });
    /** A password sign-in (or sign-up) from an address of its own: only the per-account limit can bite. */
    let n = 0;
    const attempt = (email: string, password: string, path = '/auth/signin') =>
      t.request(path, {
        ip: `203.0.${Math.floor(++n / 250)}.${n % 250}`,
        headers: { 'content-type': FORM, ...origin() },
        body: new URLSearchParams({ email, password }).toString(),
      });
    const notice = async (res: Response) =>
      /<div class="notice error"[^>]*>([^<]*)</.exec(await res.text())?.[1];

    it('refuses an email after 10 attempts in 15 minutes from any address, saying the same for an unknown email', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      await t.session('ada@example.com', PASSWORD);
      for (let i = 0; i < 10; i++) {
        expect((await attempt('ada@example.com', `wrong password ${i}`)).status).toBe(401);
        expect((await attempt('nobody@example.com', `wrong password ${i}`)).status).toBe(401);
      }
      // The right password no longer helps, and an unknown email is answered alike: nothing tells
      // which of the two has an account.
      const [known, unknown] = [
        await attempt('ADA@example.com', PASSWORD),
        await attempt('nobody@example.com', PASSWORD),
      ];
      expect([known.status, unknown.status]).toEqual([429, 429]);
      const [knownText, unknownText] = [await notice(known), await notice(unknown)];
      expect(knownText).toBe(
        'Too many sign-in attempts for this email; try again in 15 minutes, or sign in with GitHub.',
      );
      expect(unknownText).toBe(knownText);
      expect(known.headers.get('set-cookie')).toBeNull();
      // Sign-up with a taken email checks its password: held to the same limit.
      expect((await attempt('ada@example.com', PASSWORD, '/auth/signup')).status).toBe(429);
      // Another account is not affected.
      expect((await attempt('bob@example.com', PASSWORD, '/auth/signup')).status).toBe(303);
      vi.setSystemTime(Date.now() + 15 * 60_000);
      expect((await attempt('ada@example.com', PASSWORD)).status).toBe(303);
    });

    it('starts again from zero after the right password', async () => {
      await t.session('ada@example.com', PASSWORD);
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 9; i++)
          expect((await attempt('ada@example.com', `wrong password ${i}`)).status).toBe(401);
        expect((await attempt('ada@example.com', PASSWORD)).status).toBe(303);
      }
    });
  });

  it('refuses well-known leaked and trivial passwords at sign-up, creating nothing', async () => {
    for (const [password, message] of [
      ['123456789012', 'This password is among well-known leaked passwords; choose another.'],
      ['qwerty123456', 'This password is among well-known leaked passwords; choose another.'],
      ['password1234', 'This password is too easy to guess'],
      ['aaaaaaaaaaaa', 'This password is too easy to guess'],
    ] as const) {
      const res = await form('/auth/signup', { email: 'ada@example.com', password });
      expect(res.status, password).toBe(400);
      expect(await res.text(), password).toContain(message);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    expect(await users()).toBe(false);
  });

  it('says the same on a wrong password and an unknown email', async () => {
    await t.session('ada@example.com', PASSWORD);
    const wrong = await form('/auth/signin', { email: 'ada@example.com', password: 'not the password' });
    const unknown = await form('/auth/signin', { email: 'bob@example.com', password: PASSWORD });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const message = (html: string) => /<div class="notice error"[^>]*>([^<]*)</.exec(html)?.[1];
    expect(message(await wrong.text())).toBe('Wrong email or password.');
    expect(message(await unknown.text())).toBe('Wrong email or password.');
    expect(await t.session('ada@example.com', PASSWORD, true)).toMatch(/^svc_session=/);
  });

  it('signs a taken email in on its own password, and otherwise refuses without creating anything', async () => {
    await t.session('ada@example.com', PASSWORD);
    expect(await t.session('ada@example.com', PASSWORD)).toMatch(/^svc_session=/);
    const other = await form('/auth/signup', { email: 'ada@example.com', password: 'another long password' });
    expect(other.status).toBe(409);
    expect(await other.text()).toContain('cannot be used for a new account');
    expect(await t.session('ada@example.com', PASSWORD, true)).toMatch(/^svc_session=/);
  });

  it('refuses a sign-in form posted from another origin (login CSRF)', async () => {
    const res = await form(
      '/auth/signup',
      { email: 'ada@example.com', password: PASSWORD },
      { origin: 'https://evil.example' },
    );
    expect(res.status).toBe(403);
    expect(await users()).toBe(false);
  });

  it('ends the session everywhere on sign-out: the row is gone, so every instance refuses the cookie', async () => {
    const cookie = await t.session('ada@example.com', PASSWORD);
    // A second instance on the same database: the session holds there, until it ends on the first.
    const other = createApp(
      await createServices(t.config, {
        logger: createLogger(new PassThrough()),
        now: () => clock,
        storage: await t.db.open(),
        redis: null,
      }),
    );
    const onOther = () => other.request('/api/keys', { headers: { cookie } }, { incoming: { socket: {} } });
    expect((await onOther()).status).toBe(200);
    {
      const out = await form('/auth/signout', {}, { ...origin(), cookie });
      expect(out.status).toBe(303);
      expect(out.headers.get('set-cookie')).toMatch(/svc_session=;.*Max-Age=0/);
      expect((await t.request('/api/keys', { headers: { cookie } })).status).toBe(401);
      const page = await t.request('/dashboard', { headers: { cookie } });
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toBe('/auth/signin');
      expect((await onOther()).status).toBe(401);
    }
  });

  it('expires a session after 30 idle days: the page says so and the API answers 401', async () => {
    const cookie = await t.session('ada@example.com', PASSWORD);
    clock = new Date(clock.getTime() + 29 * 86_400_000);
    expect((await t.request('/api/keys', { headers: { cookie } })).status).toBe(200);
    // Seen on day 29, so day 58 is 29 idle days later: still valid (sliding expiry).
    clock = new Date(clock.getTime() + 29 * 86_400_000);
    expect((await t.request('/api/keys', { headers: { cookie } })).status).toBe(200);
    clock = new Date(clock.getTime() + 31 * 86_400_000);
    const page = await t.request('/dashboard/keys', { headers: { cookie } });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/auth/signin?note=expired');
    const signin = await t.request('/auth/signin?note=expired');
    expect(await signin.text()).toContain('Your session has expired');
    const api = await t.request('/api/keys', { headers: { cookie } });
    expect(api.status).toBe(401);
    // The page above ended the expired session; the API says so when it is the first to see it.
    const again = await t.session('ada@example.com', PASSWORD, true);
    clock = new Date(clock.getTime() + 31 * 86_400_000);
    const expired = await t.request('/api/keys', { headers: { cookie: again } });
    expect(expired.status).toBe(401);
    expect(await expired.json()).toEqual({ error: 'your session has expired; sign in again' });
  });

  it('counts every /auth/ request against 20 a minute per IP: the 21st sign-in page is 429 with Retry-After', async () => {
    for (let i = 0; i < 20; i++) {
      const res = await t.request('/auth/signin', { ip: '198.51.100.7' });
      expect(res.status).toBe(200);
    }
    const limited = await t.request('/auth/signin', { ip: '198.51.100.7' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ error: expect.stringContaining('rate limit') });
    // A browser gets the same as a page in the dashboard's frame.
    const page = await t.request('/auth/signin', {
      ip: '198.51.100.7',
      headers: { accept: 'text/html,*/*' },
    });
    expect(page.status).toBe(429);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toMatch(
      /<h1>Too many requests<\/h1>[\s\S]*Rate limit exceeded: 20 requests a minute/,
    );
    expect((await t.request('/auth/signin', { ip: '198.51.100.8' })).status).toBe(200);
  });

  describe('Sign in with GitHub', () => {
    /** A browser's cookie jar, as far as these tests need one: name=value pairs, later ones win. */
    const jar = (...cookies: (string | undefined)[]) =>
      cookies.filter((c): c is string => c !== undefined && !c.endsWith('=')).join('; ');
    const stateCookieOf = (res: Response) =>
      /svc_oauth_state=[^;]*/.exec(res.headers.get('set-cookie') ?? '')?.[0];

    /**
     * Start (in a browser holding `cookie`), then the fake's approval: the callback path the browser
     * would be sent to, and the state cookie the start gave that browser.
     */
    async function approvedCallback(cookie?: string): Promise<{ path: string; stateCookie: string }> {
      const start = await t.request('/auth/codehost-a/start', { headers: cookie ? { cookie } : {} });
      expect(start.status).toBe(302);
      const authorize = new URL(start.headers.get('location') ?? '');
      expect(authorize.origin).toBe(fake.url);
      expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
      const state = authorize.searchParams.get('state');
      expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const setCookie = start.headers.get('set-cookie') ?? '';
      // The browser's half of the state: its own, HttpOnly, Lax (sent on the provider's redirect back), 10 minutes.
      expect(setCookie).toContain(`svc_oauth_state=${state};`);
      expect(setCookie).toContain('HttpOnly');
      expect(setCookie).toContain('SameSite=Lax');
      expect(setCookie).toContain('Max-Age=600');
      const approved = await fetch(authorize, { redirect: 'manual' });
      const back = new URL(approved.headers.get('location') ?? '');
      return { path: `${back.pathname}${back.search}`, stateCookie: stateCookieOf(start) as string };
    }
    const callback = (path: string, cookie: string) => t.request(path, { headers: { cookie } });

    it('creates the user from the verified email, links the identity, and signs in again by it', async () => {
      const first = await approvedCallback();
      const res = await callback(first.path, first.stateCookie);
      expect(res.status).toBe(303);
      expect(res.headers.get('set-cookie')).toMatch(/svc_session=[A-Za-z0-9_-]{43}/);
      // The state cookie is cleared with the answer.
      expect(res.headers.get('set-cookie')).toMatch(/svc_oauth_state=;.*Max-Age=0/);
      const user = await t.db.storage.identities.findUserByIdentity('codehost-a', '4242');
      expect(user?.email).toBe('octo@example.com');
      // The email changes on GitHub; the link (by id) still finds the same user.
      fake.user = { ...fake.user, emails: [{ email: 'new@example.com', primary: true, verified: true }] };
      const again = await approvedCallback();
      expect((await callback(again.path, again.stateCookie)).status).toBe(303);
      expect(await t.db.storage.accounts.findUserByEmail('new@example.com')).toBeNull();
    });

    it('signs nobody in from a callback URL started in another browser (login CSRF), with no cookie or another one', async () => {
      // Browser 1 (the attacker's) starts and is approved, but never visits its callback URL.
      const attacker = await approvedCallback();
      // Browser 2 (the victim's) is sent there: without a state cookie, then with one of its own flow.
      const own = await approvedCallback();
      for (const cookie of ['', own.stateCookie]) {
        const res = await callback(attacker.path, cookie);
        expect(res.status, cookie).toBe(403);
        expect(res.headers.get('set-cookie') ?? '', cookie).not.toMatch(/svc_session=[^;]/);
        expect(await res.text()).toContain(
          'This sign-in was not started in this browser, so it signs nobody in',
        );
      }
      // Nothing reached the provider, nothing was made; the state is the starting browser's to use.
      expect(fake.requests.filter((r) => r === 'POST /login/oauth/access_token')).toHaveLength(0);
      expect(await t.db.storage.identities.findUserByIdentity('codehost-a', '4242')).toBeNull();
      expect((await callback(attacker.path, attacker.stateCookie)).status).toBe(303);
    });

    it('refuses a replayed callback, a forged state and a missing state, changing nothing', async () => {
      const { path, stateCookie } = await approvedCallback();
      expect((await callback(path, stateCookie)).status).toBe(303);
      const forged = 'forged-state-forged-state-forged-state-123';
      for (const [p, cookie] of [
        // The same browser again (as if it had kept the cookie): the state is used.
        [path, stateCookie],
        // A state this service never issued, even with a matching cookie.
        [path.replace(/state=[^&]+/, `state=${forged}`), `svc_oauth_state=${forged}`],
        [path.replace(/&?state=[^&]+/, ''), stateCookie],
      ] as const) {
        const res = await callback(p, cookie);
        expect(res.status).toBe(400);
        expect(res.headers.get('set-cookie') ?? '').not.toMatch(/svc_session=[^;]/);
        expect(await res.text()).toContain('This sign-in link is unknown, expired or already used');
      }
      // Only the first exchange reached the token endpoint.
      expect(fake.requests.filter((r) => r === 'POST /login/oauth/access_token')).toHaveLength(1);
    });

    it("does not let a password sign-up of someone else's email take over their GitHub sign-in (pre-hijacking)", async () => {
      // The attacker signs up first with the victim's address and a password of their own.
      const attackerCookie = await t.session('victim@x.test', PASSWORD);
      const squatted = await t.db.storage.accounts.findUserByEmail('victim@x.test');
      // The victim signs in with GitHub, whose verified email is that address.
      fake.user = {
        id: 777,
        login: 'victim',
        emails: [{ email: 'Victim@X.test', primary: true, verified: true }],
      };
      const { path, stateCookie } = await approvedCallback();
      const res = await callback(path, stateCookie);
      expect(res.status).toBe(409);
      expect(res.headers.get('set-cookie') ?? '').not.toMatch(/svc_session=[^;]/);
      expect(await res.text()).toContain(
        'An account with the email of your GitHub account exists already; sign in to it with its password, then link GitHub',
      );
      // No link: the victim's GitHub identity opens nothing, the attacker's account holds nothing of it.
      expect(await t.db.storage.identities.findUserByIdentity('codehost-a', '777')).toBeNull();
      const seen = await t.request('/api/account', { headers: { cookie: attackerCookie } });
      expect(seen.status).toBe(200);
      expect(await seen.json()).toMatchObject({ email: 'victim@x.test' });
      expect(await (await t.request('/api/keys', { headers: { cookie: attackerCookie } })).json()).toEqual({
        keys: [],
      });
      // The victim tries again: still refused, still no session, and the squatted account is unchanged.
      const again = await approvedCallback();
      expect((await callback(again.path, again.stateCookie)).status).toBe(409);
      expect(await t.db.storage.accounts.findUserByEmail('victim@x.test')).toEqual(squatted);
    });

    it('links GitHub to the account signed in with its password in the same browser, and only to it', async () => {
      const session = await t.session('octo@example.com', PASSWORD);
      const owner = await t.db.storage.accounts.findUserByEmail('octo@example.com');
      const overview = await (await t.request('/dashboard', { headers: { cookie: session } })).text();
      expect(overview).toContain('href="/auth/codehost-a/start"');
      const { path, stateCookie } = await approvedCallback(session);
      const linked = await callback(path, jar(session, stateCookie));
      expect(linked.status).toBe(303);
      expect(await t.db.storage.identities.findUserByIdentity('codehost-a', '4242')).toMatchObject({
        id: owner?.id,
      });
      // From now on, a plain GitHub sign-in (another browser, signed out) lands in that account,
      // and its password still works for its owner.
      const plain = await approvedCallback();
      const res = await callback(plain.path, plain.stateCookie);
      expect(res.status).toBe(303);
      const cookie = /svc_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0] as string;
      expect(await (await t.request('/api/account', { headers: { cookie } })).json()).toMatchObject({
        email: 'octo@example.com',
      });
      expect(await t.session('octo@example.com', PASSWORD, true)).toMatch(/^svc_session=/);
      // Linked: the overview no longer offers to link GitHub.
      const after = await (await t.request('/dashboard', { headers: { cookie: session } })).text();
      expect(after).not.toContain('href="/auth/codehost-a/start"');
    });

    it('refuses to link when the session that started it is gone, or the GitHub account is linked elsewhere', async () => {
      const session = await t.session('ada@example.com', PASSWORD);
      const started = await approvedCallback(session);
      // Signed out between start and callback: the flow linked nobody and signs nobody in.
      await form('/auth/signout', {}, { ...origin(), cookie: session });
      const gone = await callback(started.path, started.stateCookie);
      expect(gone.status).toBe(403);
      expect(await gone.text()).toContain('You are no longer signed in to the account that started linking');
      expect(await t.db.storage.identities.findUserByIdentity('codehost-a', '4242')).toBeNull();
      // The GitHub account already belongs to another user (made by a GitHub sign-in).
      const plain = await approvedCallback();
      expect((await callback(plain.path, plain.stateCookie)).status).toBe(303);
      const bob = await t.session('bob@example.com', PASSWORD);
      const link = await approvedCallback(bob);
      const elsewhere = await callback(link.path, jar(bob, link.stateCookie));
      expect(elsewhere.status).toBe(409);
      expect((await t.db.storage.identities.findUserByIdentity('codehost-a', '4242'))?.email).toBe(
        'octo@example.com',
      );
    });

    it('refuses an account without a verified email', async () => {
      fake.user = {
        id: 7,
        login: 'anon',
        emails: [{ email: 'anon@example.com', primary: true, verified: false }],
      };
      const { path, stateCookie } = await approvedCallback();
      const res = await callback(path, stateCookie);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('no verified email address');
      expect(await t.db.storage.accounts.findUserByEmail('anon@example.com')).toBeNull();
    });
  });

  it('keeps no password, session id or key in clear in the database or the logs', async () => {
    const cookie = await t.session('ada@example.com', PASSWORD);
    const sessionId = cookie.split('=')[1] as string;
    const created = await t.request('/api/keys', {
      method: 'POST',
      headers: { cookie, origin: t.config.baseUrl, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ci' }),
    });
    const { key } = (await created.json()) as { key: string };
    expect((await t.request('/api/account', { key })).status).toBe(200);
    await form('/auth/signin', { email: 'ada@example.com', password: `${PASSWORD}!` });
    await form('/auth/signout', {}, { ...origin(), cookie });
    const dir = dirname(t.db.url.slice('sqlite:'.length));
    const files = readdirSync(dir).map((f) => readFileSync(`${dir}/${f}`).toString('latin1'));
    expect(files.length).toBeGreaterThan(0);
    for (const secret of [PASSWORD, sessionId, key]) {
      for (const content of [...files, t.logs.join('\n')]) expect(content.includes(secret)).toBe(false);
    }
  });
});

const redisUp = await redisAvailable('per-account sign-in limit on Redis');

describe.skipIf(!redisUp)('attempts per account on Redis', () => {
  it('counts attempts on one email across instances sharing Redis', async () => {
    const [a, b] = [new Redis(REDIS_URL), new Redis(REDIS_URL)];
    const t = await startTestApp({ redis: a });
    try {
      const other = createApp(
        await createServices(t.config, {
          logger: createLogger(new PassThrough()),
          storage: await t.db.open(),
          redis: b,
        }),
      );
      // Unique per run: the counters outlive the test in Redis.
      const email = `ada-${randomUUID()}@example.com`;
      await t.session(email, PASSWORD);
      const attempt = (app: typeof other, password: string, i: number) =>
        app.request(
          '/auth/signin',
          {
            method: 'POST',
            headers: { 'content-type': FORM, origin: t.config.baseUrl },
            body: new URLSearchParams({ email, password }).toString(),
          },
          { incoming: { socket: { remoteAddress: `198.18.0.${i}` } } },
        );
      for (let i = 0; i < 10; i++)
        expect((await attempt(i % 2 ? t.app : other, 'wrong password', i)).status).toBe(401);
      expect((await attempt(t.app, PASSWORD, 100)).status).toBe(429);
      expect((await attempt(other, PASSWORD, 101)).status).toBe(429);
    } finally {
      await t.cleanup();
      a.disconnect();
      b.disconnect();
    }
  });
});
