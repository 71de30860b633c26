import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/helpers/test-app.js';

const LIMIT = 16 * 1024;
const OVER = { error: 'request body over 16 KiB' };

/**
 * Sends `total` bytes to `path` on a real listener as a chunked body (no Content-Length), from one
 * reused buffer, and stops sending once the answer comes. Resolves with the status, the answer, how
 * many bytes had been sent by then, and the highest RSS of this process (the server's too) meanwhile.
 */
function streamChunked(
  url: string,
  path: string,
  total: number,
  headers: Record<string, string>,
): Promise<{ status: number; body: string; sent: number; peakRss: number }> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    let answered = false;
    let peakRss = process.memoryUsage.rss();
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
    }, 10);
    const req = httpRequest(`${url}${path}`, { method: 'POST', headers }, (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        body += d;
      });
      res.on('end', () => {
        clearInterval(sampler);
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body, sent, peakRss });
      });
    });
    req.on('error', (e) => {
      if (!answered) {
        clearInterval(sampler);
        reject(e);
      }
    });
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe('request body limits (contract 4)', () => {
  let t: TestApp;
  let key: string;
  let cookie: string;
  let server: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    t = await startTestApp({ rateLimits: { api: 1_000_000, auth: 1_000_000 } });
    key = await t.userWithKey('owner@example.test', 'paid', { name: 'limits', plan: 'paid' });
    cookie = await t.session('forms@example.test', 'a long enough passphrase 42');
    server = await t.listen();
  });
  afterAll(async () => {
    await server?.close();
    await t?.cleanup();
  });

  const form = (size: number) => `email=a%40example.test&password=${'x'.repeat(size - 32)}`;
  const json = (size: number) => JSON.stringify({ name: 'n'.repeat(size - 11) });

  it.each([
    ['POST', '/auth/signin', 'form', false],
    ['POST', '/auth/signup', 'form', false],
    ['POST', '/dashboard/keys', 'form', true],
    ['POST', '/dashboard/team/mode', 'form', true],
    ['POST', '/api/keys', 'json', true],
    ['PUT', '/api/team/mode', 'json', false],
    ['POST', '/api/scans', 'json', false],
    ['DELETE', '/api/keys/svc_abcdefgh', 'json', false],
    ['POST', '/api/no-such-route', 'json', false],
    ['POST', '/dashboard/no-such-page', 'form', true],
  ] as const)('%s %s: 413 with the error envelope one byte past 16 KiB', async (method, path, kind, session) => {
    const headers: Record<string, string> = {
      'content-type': kind === 'form' ? 'application/x-www-form-urlencoded' : 'application/json',
      origin: t.config.baseUrl,
      ...(session ? { cookie } : { authorization: `Bearer ${key}` }),
    };
    const body = kind === 'form' ? form(LIMIT + 1) : json(LIMIT + 1);
    expect(Buffer.byteLength(body)).toBe(LIMIT + 1);
    const r = await t.request(path, { method, headers, body });
    expect(r.status).toBe(413);
    expect(await r.json()).toEqual(OVER);
  });

  it('lets a body of exactly 16 KiB through to the route', async () => {
    const headers = { 'content-type': 'application/x-www-form-urlencoded', origin: t.config.baseUrl };
    const r = await t.request('/auth/signin', { headers, body: form(LIMIT) });
    // The route read it: the sign-in page saying the sign-in failed, not a 413.
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    const created = await t.request('/api/keys', {
      headers: { 'content-type': 'application/json', origin: t.config.baseUrl, cookie },
      body: JSON.stringify({ name: 'fits' }),
    });
    expect(created.status).toBe(201);
  });

  it('refuses a declared length over the limit without reading it (a real listener)', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${server.url}/auth/signin`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'content-length': String(600 * 1024 * 1024),
          },
        },
        (res) => {
          let body = '';
          res.on('data', (d) => {
            body += d;
          });
          res.on('end', () => {
            req.destroy();
            resolve({ status: res.statusCode ?? 0, body });
          });
        },
      );
      req.on('error', reject);
      req.write('email=a');
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual(OVER);
  });

  it.each([
    ['/auth/signin', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['/api/keys', { 'content-type': 'application/json' }],
  ])('cuts a chunked body with no length off as it passes the limit: %s, memory stays low', async (path, headers) => {
    const total = 256 * 1024 * 1024;
    const before = process.memoryUsage.rss();
    const result = await streamChunked(server.url, path, total, {
      ...headers,
      origin: t.config.baseUrl,
      cookie,
    });
    expect(result.status).toBe(413);
    expect(JSON.parse(result.body)).toEqual(OVER);
    // Answered long before the client was done sending, and nothing near the body held in memory.
    expect(result.sent).toBeLessThan(total);
    expect(result.peakRss - before).toBeLessThan(96 * 1024 * 1024);
  });

  it('leaves the routes that bound their own body to them: hooks allow, MCP and the webhook answer 413', async () => {
    const hook = await t.request('/api/hooks/agent-b', {
      key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool_input: { command: `npm install ${'a'.repeat(64 * 1024)}` } }),
    });
    // 64 KiB is far under the hooks' 1 MiB: read and judged, not refused by the 16 KiB default.
    expect(hook.status).toBe(200);
    const bigHook = await t.request('/api/hooks/agent-b', {
      key,
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(2 * 1024 * 1024),
    });
    expect(bigHook.status).toBe(200);
    expect(JSON.stringify(await bigHook.json())).toMatch(/not checked: the hook input is larger/);
    const mcp = await t.request('/mcp', {
      key,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'scan_secrets', arguments: { documents: [{ content: 'x'.repeat(512 * 1024) }] } },
      }),
    });
    expect(mcp.status).toBe(200);
  });
});
