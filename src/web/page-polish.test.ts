import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRegistries } from '../../test/helpers/fake-registries.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { mcpClientSetups } from '../services/mcp-client-config.js';
import { ASSET_PATHS } from './assets.js';

const PASSWORD = 'correct horse battery';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const OLD = new Date('2020-01-01T00:00:00Z');

describe('what a browser meets beyond the pages themselves', () => {
  let t: TestApp;
  let registries: FakeRegistries;

  beforeAll(async () => {
    registries = await FakeRegistries.start();
    registries
      .addPackage('npm', 'flaky-pkg', { versions: { '1.0.0': OLD } })
      .setBehavior('npm', 500, 'flaky-pkg');
    t = await startTestApp({ registries: registries.urls });
  });
  afterAll(async () => {
    await t?.cleanup();
    await registries?.stop();
  });

  it('an unknown page is an HTML 404 page to a browser, with the pages’ headers; JSON to scripts and under /api', async () => {
    const page = await t.request('/no/such/page', { headers: { accept: BROWSER_ACCEPT } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain('<h1>Page not found</h1>');
    expect(html).toContain(`<link rel="icon" href="${ASSET_PATHS.icon}"`);

    const script = await t.request('/no/such/page', { headers: { accept: 'application/json' } });
    expect(script.status).toBe(404);
    expect(await script.json()).toEqual({ error: 'not found: GET /no/such/page' });
    const api = await t.request('/api/nothing', {
      key: await t.userWithKey('api404@example.com'),
      headers: { accept: BROWSER_ACCEPT },
    });
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('every page names an icon that is served, and /favicon.ico leads to it', async () => {
    const signin = await (await t.request('/auth/signin')).text();
    expect(signin).toContain(`<link rel="icon" href="${ASSET_PATHS.icon}" type="image/svg+xml"/>`);
    const icon = await t.request(ASSET_PATHS.icon);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(await icon.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const favicon = await t.request('/favicon.ico');
    expect(favicon.status).toBe(301);
    expect(favicon.headers.get('location')).toBe(ASSET_PATHS.icon);
  });

  it('revoking a key from a page asks first: the form without confirmation revokes nothing', async () => {
    const cookie = await t.session('rev@example.com', PASSWORD);
    const key = await t.services.accounts.issueKey('rev@example.com', 'ci');
    const prefix = key.slice(0, 12);
    const headers = { cookie, origin: t.config.baseUrl, 'content-type': 'application/x-www-form-urlencoded' };
    const unconfirmed = await t.request('/dashboard/keys/revoke', { headers, body: `prefix=${prefix}` });
    expect(unconfirmed.status).toBe(200);
    const page = await unconfirmed.text();
    expect(page).toContain('Revoke the key “ci”?');
    expect(page).toContain('name="confirm" value="1"');
    expect((await t.request('/api/account', { key })).status).toBe(200);

    const confirmed = await t.request('/dashboard/keys/revoke', {
      headers,
      body: `prefix=${prefix}&confirm=1`,
    });
    expect(confirmed.status).toBe(303);
    expect((await t.request('/api/account', { key })).status).toBe(401);
  });

  it('the overview says an install that could not be checked was not fully checked, with names as code', async () => {
    const cookie = await t.session('flaky@example.com', PASSWORD);
    const key = await t.services.accounts.issueKey('flaky@example.com', 'agent');
    const hook = await t.request('/api/hooks/agent-a', {
      key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'npm install flaky-pkg', hook_event_name: 'beforeShellExecution' }),
    });
    expect(((await hook.json()) as { permission: string }).permission).toBe('allow');
    const overview = await (await t.request('/dashboard', { headers: { cookie } })).text();
    expect(overview).not.toContain('>none<');
    expect(overview).toContain('<code>flaky-pkg</code> was not fully checked: npm did not answer');
    expect(overview).not.toContain('`');
  });

  it('the setup page’s MCP configurations work as pasted: the Cursor entry’s url and headers reach the tools', async () => {
    const { url: base, close } = await t.listen();
    try {
      const key = await t.userWithKey('mcp@example.com');
      const entry = JSON.parse(mcpClientSetups(base).a.json).mcpServers.svc as {
        url: string;
        headers: Record<string, string>;
      };
      const headers = {
        ...entry.headers,
        Authorization: (entry.headers.Authorization ?? '').replace('<SVC_API_KEY>', key),
      };
      const res = await fetch(entry.url, {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'cursor', version: '1' },
          },
        }),
      });
      expect(res.status).toBe(200);
      expect(
        ((await res.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name,
      ).toBe('svc');
      const claude = mcpClientSetups(base).b;
      expect(JSON.parse(claude.json).mcpServers.svc.url).toBe(entry.url);
      expect(claude.command).toContain(` ${entry.url} `);
    } finally {
      await close();
    }
  });
});
