import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARSER_HEADER_CAP, SERVER_LIMITS } from '../../src/server/serve-app.js';
import { sleep } from '../helpers/load.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/** Sends `raw` bytes on a new connection and resolves with all that came back before it closed. */
function rawExchange(url: string, raw: string, giveUpMs = 8000): Promise<{ text: string; ms: number }> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    const started = Date.now();
    let text = '';
    socket.on('data', (d) => {
      text += d;
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve({ text, ms: Date.now() - started }));
    socket.write(raw);
    setTimeout(() => socket.destroy(), giveUpMs);
  });
}

const bodyOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
const statusOf = (text: string) => Number(text.split(' ')[1]);

describe('the service under hostile or careless clients, over real HTTP', () => {
  let t: TestApp;
  let server: { url: string; close(): Promise<void> };
  let key: string;
  let dir: string;
  const bigBinary = randomBytes(24 * 1024 * 1024);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-hardening-'));
    // Large enough that a client can stop reading part-way: the socket buffers cannot hold it all.
    writeFileSync(join(dir, 'svc-linux-x64'), bigBinary);
    t = await startTestApp({ binaryFile: join(dir, 'svc-linux-x64') });
    key = await t.userWithKey('hardening@example.test', 'paid');
    server = await t.listen({ headersTimeoutMs: 600, requestTimeoutMs: 900 });
  });
  afterAll(async () => {
    await server.close();
    await t.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const runsUsed = async () => {
    const account = await fetch(`${server.url}/api/account`, { headers: { authorization: `Bearer ${key}` } });
    return ((await account.json()) as { ciRuns: { used: number } }).ciRuns.used;
  };
  const binaryUrl = () => `${server.url}/api/action/binary?repo=acme/app`;

  it('HEAD answers the headers of a download and counts no CI run', async () => {
    const before = await runsUsed();
    const head = await fetch(binaryUrl(), { method: 'HEAD', headers: { authorization: `Bearer ${key}` } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bigBinary.length));
    expect(head.headers.get('x-svc-ci-runs-remaining')).toBe(String(10000 - before));
    expect(await runsUsed()).toBe(before);
    const got = await fetch(binaryUrl(), { headers: { authorization: `Bearer ${key}` } });
    expect(Buffer.from(await got.arrayBuffer()).equals(bigBinary)).toBe(true);
    expect(await runsUsed()).toBe(before + 1);
  });

  it('gives back the CI run of a download the client abandons part-way', async () => {
    const before = await runsUsed();
    const controller = new AbortController();
    const response = await fetch(binaryUrl(), {
      headers: { authorization: `Bearer ${key}` },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    let used = -1;
    for (let i = 0; i < 50 && used !== before; i++) {
      await sleep(100);
      used = await runsUsed();
    }
    expect(used).toBe(before);
  });

  it('lets an identity token past the old 16 KiB header limit reach the product’s own check', async () => {
    const token = `${'a'.repeat(17 * 1024)}.b.c`;
    const r = await fetch(binaryUrl(), {
      headers: { authorization: `Bearer ${key}`, 'x-codehosta-oidc': token },
    });
    expect(r.status).toBe(401);
    expect(await r.json()).toEqual({ error: 'invalid GitHub identity token: malformed token' });
  });

  it('answers headers over the limit with the error envelope, and hooks with their fail-open answer', async () => {
    const huge = 'x'.repeat(SERVER_LIMITS.maxHeaderBytes + 1024);
    const api = await rawExchange(
      server.url,
      `GET /api/action/binary HTTP/1.1\r\nHost: a\r\nX-Big: ${huge}\r\n\r\n`,
    );
    expect(statusOf(api.text)).toBe(431);
    expect(bodyOf(api.text)).toEqual({ error: 'request headers over 64 KiB' });
    const why = 'svc: command not checked: request headers over 64 KiB';
    for (const [path, answer] of [
      ['/api/hooks/agent-a', { permission: 'allow', user_message: why, agent_message: why }],
      // Claude Code: no decision (the user's own prompts decide), the reason as a note.
      ['/api/hooks/agent-b', { systemMessage: why }],
    ] as const) {
      const hook = await rawExchange(
        server.url,
        `POST ${path} HTTP/1.1\r\nHost: a\r\nX-Big: ${huge}\r\nContent-Length: 2\r\n\r\n{}`,
      );
      expect(statusOf(hook.text)).toBe(200);
      expect(bodyOf(hook.text)).toMatchObject(answer);
      expect(bodyOf(hook.text).hookSpecificOutput).toBeUndefined();
    }
  });

  it('answers headers past what Node parses at all with the error envelope, not a reset', async () => {
    const enormous = 'x'.repeat(PARSER_HEADER_CAP + 1024);
    for (const path of ['/api/account', '/api/hooks/agent-a']) {
      const answer = await rawExchange(
        server.url,
        `GET ${path} HTTP/1.1\r\nHost: a\r\nX-Big: ${enormous}\r\n\r\n`,
      );
      // The request line was in an earlier packet than the one Node refused: no path, so no hook format.
      expect(statusOf(answer.text)).toBe(431);
      expect(bodyOf(answer.text)).toEqual({ error: 'request headers over 64 KiB' });
    }
  });

  it('answers a chunked hook body over 1 MiB with an allow, not a reset connection', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${server.url}/api/hooks/agent-a`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(64 * 1024, 'y');
      req.write('{"command":"npm install x","pad":"');
      for (let i = 0; i < 32; i++) req.write(chunk);
      req.end('"}');
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({
      permission: 'allow',
      user_message: 'svc: command not checked: the hook input is larger than 1048576 bytes',
    });
  });

  it('cuts off a slow-loris client: headers never finished, a declared body never sent', async () => {
    const stalled = await rawExchange(server.url, 'GET /api/account HTTP/1.1\r\nHost: a\r\n');
    expect(statusOf(stalled.text)).toBe(408);
    expect(bodyOf(stalled.text)).toEqual({ error: 'the request was not received in time' });
    expect(stalled.ms).toBeLessThan(5000);
    const hook = await rawExchange(
      server.url,
      `POST /api/hooks/agent-b HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${key}\r\nContent-Length: 500\r\n\r\n{"tool_input":`,
    );
    expect(statusOf(hook.text)).toBe(200);
    expect(bodyOf(hook.text)).toEqual({
      systemMessage: 'svc: command not checked: the request was not received in time',
    });
  });

  it('serves with limits that suit the hooks’ 15 s client (documented defaults)', () => {
    expect(SERVER_LIMITS.requestTimeoutMs).toBeLessThan(15_000);
    expect(SERVER_LIMITS.headersTimeoutMs).toBeLessThanOrEqual(SERVER_LIMITS.requestTimeoutMs);
    expect(SERVER_LIMITS.maxHeaderBytes).toBeGreaterThan(16 * 1024 + 1024);
  });
});
