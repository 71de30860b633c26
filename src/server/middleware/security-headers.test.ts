import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/helpers/test-app.js';

const PASSWORD = 'correct horse battery';
const FORM = 'application/x-www-form-urlencoded';

/** Contract 4: nosniff on every answer, no-store on private ones, HSTS and `__Host-` over https. */
describe('security headers', () => {
  const apps: TestApp[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((t) => t.cleanup()));
  });
  const start = async (options: Parameters<typeof startTestApp>[0] = {}) => {
    const t = await startTestApp(options);
    apps.push(t);
    return t;
  };

  it('sends nosniff and no-store on every kind of answer: API, pages, errors, 404s, hooks, MCP, binary', async () => {
    const t = await start();
    const key = await t.userWithKey('ada@example.com');
    const cookie = await t.session('bob@example.com', PASSWORD);
    const answers: [string, Response][] = [
      ['/livez', await t.request('/livez')],
      ['/api/account', await t.request('/api/account', { key })],
      ['/api/keys', await t.request('/api/keys', { key })],
      ['/api/team', await t.request('/api/team', { key })],
      ['/api/scans', await t.request('/api/scans', { key })],
      ['/api/account 401', await t.request('/api/account')],
      ['/api/nothing 404', await t.request('/api/nothing', { key })],
      ['/ redirect', await t.request('/')],
      ['/dashboard', await t.request('/dashboard', { headers: { cookie } })],
      ['/dashboard/keys', await t.request('/dashboard/keys', { headers: { cookie } })],
      ['/auth/signin', await t.request('/auth/signin')],
      ['/api/hooks/agent-a', await t.request('/api/hooks/agent-a', { key, body: '{"command":"ls"}' })],
      [
        '/mcp',
        await t.request('/mcp', {
          key,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        }),
      ],
      ['/mcp 401', await t.request('/mcp', { body: '{}' })],
      [
        '/api/action/binary 401',
        await t.request('/api/action/binary', { key, headers: { 'x-codehosta-oidc': 'x' } }),
      ],
      [
        '/api/action/binary',
        await t.request('/api/action/binary', {
          key,
          headers: {
            'x-codehosta-oidc': await t.issuerA.sign({
              repository: 'acme/app',
              repository_visibility: 'public',
            }),
          },
        }),
      ],
      [
        '/api/keys bad body',
        await t.request('/api/keys', {
          method: 'POST',
          headers: { cookie, origin: t.config.baseUrl, 'content-type': 'application/json' },
          body: '{',
        }),
      ],
    ];
    expect(answers.find(([what]) => what === '/api/action/binary')?.[1].status).toBe(200);
    for (const [what, res] of answers) {
      expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(res.headers.get('cache-control'), what).toBe('no-store');
      // Plain http: no HSTS (a browser would ignore it anyway, and a local setup must not be pinned).
      expect(res.headers.get('strict-transport-security'), what).toBeNull();
    }
    // A hashed asset keeps its own long caching; nosniff still applies (a stylesheet must not run as script).
    const page = await (await t.request('/auth/signin')).text();
    const asset = /href="(\/assets\/[^"]+\.css)"/.exec(page)?.[1] as string;
    const css = await t.request(asset);
    expect(css.status).toBe(200);
    expect(css.headers.get('x-content-type-options')).toBe('nosniff');
    expect(css.headers.get('cache-control')).toContain('immutable');
  });

  it('marks the sign-in answer that sets the session cookie no-store, and the 429 of a rate limit nosniff', async () => {
    const t = await start({ rateLimits: { auth: 1 } });
    const res = await t.request('/auth/signup', {
      headers: { 'content-type': FORM, origin: t.config.baseUrl },
      body: new URLSearchParams({ email: 'ada@example.com', password: PASSWORD }).toString(),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toMatch(/^svc_session=/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const limited = await t.request('/auth/signin');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('with an https base URL: HSTS everywhere and the session cookie named __Host-svc_session, read back by that name only', async () => {
    const t = await start({ baseUrl: 'https://svc.example.com' });
    const res = await t.request('/auth/signup', {
      headers: { 'content-type': FORM, origin: 'https://svc.example.com' },
      body: new URLSearchParams({ email: 'ada@example.com', password: PASSWORD }).toString(),
    });
    expect(res.status).toBe(303);
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^__Host-svc_session=[A-Za-z0-9_-]{43}; /);
    expect(setCookie).toContain('Path=/');
    expect(setCookie).toContain('Secure');
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).not.toMatch(/Domain=/i);
    const id = /__Host-svc_session=([^;]+)/.exec(setCookie)?.[1] as string;
    for (const path of ['/api/account', '/livez', '/nothing', '/auth/signin']) {
      const answer = await t.request(path, { headers: { cookie: `__Host-svc_session=${id}` } });
      expect(answer.headers.get('strict-transport-security'), path).toBe(
        'max-age=31536000; includeSubDomains',
      );
      expect(answer.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    expect(
      (await t.request('/api/account', { headers: { cookie: `__Host-svc_session=${id}` } })).status,
    ).toBe(200);
    // The plain name is not the configured one: a cookie planted under it (by a sibling subdomain or
    // over plain http) opens nothing.
    expect((await t.request('/api/account', { headers: { cookie: `svc_session=${id}` } })).status).toBe(401);
    const out = await t.request('/auth/signout', {
      headers: {
        cookie: `__Host-svc_session=${id}`,
        origin: 'https://svc.example.com',
        'content-type': FORM,
      },
      body: '',
    });
    expect(out.headers.get('set-cookie')).toMatch(/^__Host-svc_session=;.*Max-Age=0.*Secure/);
  });

  it('sends nosniff on the answers the listener gives before the app (an oversized header)', async () => {
    const t = await start();
    const server = await t.listen({ maxHeaderBytes: 1024 });
    try {
      const res = await fetch(`${server.url}/livez`, { headers: { 'x-big': 'x'.repeat(4096) } });
      expect(res.status).toBe(431);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    } finally {
      await server.close();
    }
  });
});
