import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeCodehostA } from '../../../test/helpers/fake-codehost-a.js';
import {
  type AppApi,
  AppApiError,
  type AppApiOptions,
  type CheckRunAnnotation,
  createAppApi,
  readAppPrivateKey,
} from './api-client.js';

const APP_ID = '31337';
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const repo = { owner: 'acme', name: 'widgets' };
const run = { name: 'svc', head_sha: 'a'.repeat(40), status: 'in_progress' as const };

/** A server that takes requests and never answers them. */
async function startSilentServer(): Promise<{ url: string; received: IncomingMessage[]; server: Server }> {
  const received: IncomingMessage[] = [];
  const server = createServer((req) => received.push(req));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server };
}

function stopServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** The error a promise rejects with, failing the test if it resolves. */
async function failure(promise: Promise<unknown>): Promise<AppApiError> {
  const outcome = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(outcome).toBeInstanceOf(AppApiError);
  return outcome as AppApiError;
}

describe('the GitHub app API client', () => {
  let fake: FakeCodehostA;
  beforeEach(async () => {
    fake = await FakeCodehostA.start({ appId: APP_ID, publicKey: keys.publicKey });
  });
  afterEach(() => fake.close());

  const api = (options: Partial<AppApiOptions> = {}): AppApi =>
    createAppApi({
      apiUrl: fake.url,
      appId: APP_ID,
      privateKey: keys.privateKey,
      retry: { baseMs: 5 },
      ...options,
    });
  const exchanges = () => fake.requests.filter((r) => r.path.endsWith('/access_tokens'));
  const checkRunCalls = () => fake.requests.filter((r) => r.path.includes('/check-runs'));

  it('exchanges an app JWT for an installation token once, and reuses it', async () => {
    const client = api();
    const first = await client.installationToken(7);
    const second = await client.installationToken(7);
    expect(first).toMatch(/^ghs_[A-Za-z0-9]{36}$/);
    expect(second).toBe(first);
    expect(fake.installationOfToken(first)).toBe(7);
    expect(exchanges().map((r) => [r.method, r.path, r.status])).toEqual([
      ['POST', '/app/installations/7/access_tokens', 201],
    ]);
  });

  it('lets concurrent callers for one installation share one exchange, and keeps installations apart', async () => {
    const client = api();
    const tokens = await Promise.all([
      client.installationToken(7),
      client.installationToken(7),
      client.installationToken(7),
      client.installationToken(8),
    ]);
    expect(new Set(tokens.slice(0, 3)).size).toBe(1);
    expect(tokens[3]).not.toBe(tokens[0]);
    expect(fake.installationOfToken(tokens[3]!)).toBe(8);
    expect(exchanges().map((r) => r.path)).toEqual(
      expect.arrayContaining(['/app/installations/7/access_tokens', '/app/installations/8/access_tokens']),
    );
    expect(exchanges()).toHaveLength(2);
  });

  it('renews a token 5 minutes before it expires, not earlier', async () => {
    await fake.close();
    // 330 s to live: renewal is due 30 s after issue, without moving the JWT's times into the future.
    fake = await FakeCodehostA.start({ appId: APP_ID, publicKey: keys.publicKey, tokenTtlSeconds: 330 });
    let offset = 0;
    const client = api({ now: () => Date.now() + offset });
    const first = await client.installationToken(7);
    offset = 20_000;
    expect(await client.installationToken(7)).toBe(first);
    expect(exchanges()).toHaveLength(1);
    offset = 40_000;
    const renewed = await client.installationToken(7);
    expect(renewed).not.toBe(first);
    expect(exchanges()).toHaveLength(2);
  });

  it('forgets a token on request, and the next call gets a new one', async () => {
    const client = api();
    const first = await client.installationToken(7);
    client.forgetToken(7);
    expect(await client.installationToken(7)).not.toBe(first);
    expect(exchanges()).toHaveLength(2);
  });

  it('sends the API headers, the installation token and the JSON body; encodes owner and name', async () => {
    const client = api();
    const { id } = await client.createCheckRun(7, { owner: 'a b?', name: 'r#1' }, run);
    const token = await client.installationToken(7);
    const [call] = checkRunCalls();
    expect(call?.path).toBe('/repos/a%20b%3F/r%231/check-runs');
    expect(call?.authorization).toBe(`Bearer ${token}`);
    expect(call?.headers).toMatchObject({
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
      'user-agent': 'svc',
      'content-type': 'application/json',
    });
    expect(call?.body).toEqual(run);
    expect(fake.checkRuns()).toEqual([
      expect.objectContaining({ id, owner: 'a b?', repo: 'r#1', name: 'svc', status: 'in_progress' }),
    ]);
  });

  it('updates a check run; annotations accumulate over requests, more than 50 in one is refused at once', async () => {
    const client = api();
    const { id } = await client.createCheckRun(7, repo, run);
    const annotation = (line: number): CheckRunAnnotation => ({
      path: 'src/a.ts',
      start_line: line,
      end_line: line,
      annotation_level: 'failure',
      message: 'a secret',
    });
    const output = (from: number, count: number) => ({
      title: 'Secrets found',
      summary: `${count} findings`,
      annotations: Array.from({ length: count }, (_, i) => annotation(from + i)),
    });
    await client.updateCheckRun(7, repo, id, { output: output(1, 50) });
    await client.updateCheckRun(7, repo, id, { conclusion: 'failure', output: output(51, 2) });
    const error = await failure(client.updateCheckRun(7, repo, id, { output: output(100, 51) }));
    expect(error.status).toBe(422);
    expect(error.message).toBe('GitHub API: update check run answered 422');
    expect(checkRunCalls().map((r) => [r.method, r.status])).toEqual([
      ['POST', 201],
      ['PATCH', 200],
      ['PATCH', 200],
      ['PATCH', 422],
    ]);
    const [stored] = fake.checkRuns();
    expect(stored?.annotations).toHaveLength(52);
    expect(stored).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      output: { summary: '2 findings' },
    });
  });

  it('gets a new token when the API refuses the cached one (401), and retries once', async () => {
    const client = api();
    await client.createCheckRun(7, repo, run);
    fake.expireTokens();
    await client.createCheckRun(7, repo, run);
    expect(exchanges()).toHaveLength(2);
    expect(checkRunCalls().map((r) => r.status)).toEqual([201, 401, 201]);
    expect(fake.checkRuns()).toHaveLength(2);
  });

  it('does not count a renewal as a back-off attempt', async () => {
    const client = api({ retry: { attempts: 2, baseMs: 5 } });
    fake.failNext(1, 401, { path: /check-runs/ });
    fake.failNext(1, 500, { path: /check-runs/ });
    await client.createCheckRun(7, repo, run);
    expect(checkRunCalls().map((r) => r.status)).toEqual([401, 500, 201]);
    expect(exchanges()).toHaveLength(2);
  });

  it('fails with 401 when the renewed token is refused too, after exactly one renewal', async () => {
    const client = api();
    fake.failNext(2, 401, { path: /check-runs/ });
    const error = await failure(client.createCheckRun(7, repo, run));
    expect(error.status).toBe(401);
    expect(error.message).toBe('GitHub API: create check run answered 401');
    expect(exchanges()).toHaveLength(2);
    expect(checkRunCalls().map((r) => r.status)).toEqual([401, 401]);
  });

  it('retries a 500 with back-off: two failures, then success on the third attempt', async () => {
    const client = api();
    fake.failNext(2, 500, { path: /check-runs/ });
    const { id } = await client.createCheckRun(7, repo, run);
    expect(id).toBe(1);
    expect(checkRunCalls().map((r) => r.status)).toEqual([500, 500, 201]);
    expect(exchanges()).toHaveLength(1);
  });

  it('retries the token exchange itself on a 503', async () => {
    const client = api();
    fake.failNext(1, 503, { path: /access_tokens/ });
    await client.installationToken(7);
    expect(exchanges().map((r) => r.status)).toEqual([503, 201]);
  });

  it('honours Retry-After on a 429 instead of its own back-off', { timeout: 10_000 }, async () => {
    // Without Retry-After: 0 the wait would be a minute and the test would time out.
    const client = api({ retry: { baseMs: 60_000, maxMs: 60_000 } });
    fake.failNext(1, 429, { path: /check-runs/, headers: { 'retry-after': '0' } });
    await client.createCheckRun(7, repo, run);
    expect(checkRunCalls().map((r) => r.status)).toEqual([429, 201]);
  });

  it('retries a 403 that says the rate limit is spent, and fails at once on any other 403', async () => {
    const client = api();
    fake.failNext(1, 403, { path: /check-runs/, headers: { 'x-ratelimit-remaining': '0' } });
    await client.createCheckRun(7, repo, run);
    expect(checkRunCalls().map((r) => r.status)).toEqual([403, 201]);
    fake.failNext(1, 403, { path: /check-runs/, headers: { 'x-ratelimit-remaining': '12' } });
    const error = await failure(client.createCheckRun(7, repo, run));
    expect(error.status).toBe(403);
    expect(checkRunCalls().map((r) => r.status)).toEqual([403, 201, 403]);
  });

  it('gives up after the configured attempts with the last status', async () => {
    const client = api({ retry: { attempts: 3, baseMs: 5 } });
    fake.failNext(4, 502, { path: /check-runs/ });
    const error = await failure(client.createCheckRun(7, repo, run));
    expect(error.status).toBe(502);
    expect(error.message).toBe('GitHub API: create check run answered 502');
    expect(checkRunCalls().map((r) => r.status)).toEqual([502, 502, 502]);
  });

  it('fails at once on a 422, and on a redirect, which it does not follow', async () => {
    const client = api();
    fake.failNext(1, 422, { path: /check-runs/ });
    expect((await failure(client.createCheckRun(7, repo, run))).status).toBe(422);
    fake.failNext(1, 302, { path: /check-runs/, headers: { location: `${fake.url}/elsewhere` } });
    expect((await failure(client.createCheckRun(7, repo, run))).status).toBe(302);
    expect(fake.requests.map((r) => r.path)).not.toContain('/elsewhere');
    expect(checkRunCalls().map((r) => r.status)).toEqual([422, 302]);
  });

  it('gives up on a server that never answers, one timeout per attempt', async () => {
    const silent = await startSilentServer();
    try {
      const client = api({ apiUrl: silent.url, timeoutMs: 200, retry: { attempts: 2, baseMs: 5 } });
      const started = Date.now();
      const error = await failure(client.installationToken(7));
      expect(error.status).toBeNull();
      expect(error.message).toBe('GitHub API: create installation token did not answer within 200 ms');
      expect(silent.received).toHaveLength(2);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await stopServer(silent.server);
    }
  });

  it('stops fetching at once when the caller aborts', async () => {
    const silent = await startSilentServer();
    try {
      const client = api({ apiUrl: silent.url, timeoutMs: 60_000 });
      const controller = new AbortController();
      silent.server.on('request', () => controller.abort());
      const error = await failure(client.installationToken(7, controller.signal));
      expect(error.message).toBe('GitHub API: create installation token was stopped');
      expect(silent.received).toHaveLength(1);
    } finally {
      await stopServer(silent.server);
    }
  });

  it('stops waiting between attempts when the caller aborts, and does nothing for an aborted signal', async () => {
    const client = api({ retry: { baseMs: 60_000, maxMs: 60_000 } });
    const controller = new AbortController();
    fake.failNext(1, 503, { path: /check-runs/ });
    const pending = failure(client.createCheckRun(7, repo, run, controller.signal));
    await vi.waitFor(() => expect(checkRunCalls()).toHaveLength(1));
    controller.abort();
    const error = await pending;
    expect(error.message).toBe('GitHub API: create check run was stopped');
    expect(error.status).toBeNull();

    const before = fake.requests.length;
    const aborted = await failure(client.createCheckRun(7, repo, run, AbortSignal.abort()));
    expect(aborted.status).toBeNull();
    expect(fake.requests).toHaveLength(before);
  });

  it('signs the app JWT with RS256, iss the app id, iat backdated 60 s and exp 9 minutes ahead', async () => {
    const before = Math.floor(Date.now() / 1000);
    await api().installationToken(7);
    const jwt = exchanges()[0]?.authorization?.replace(/^Bearer /, '') ?? '';
    expect(decodeProtectedHeader(jwt).alg).toBe('RS256');
    const claims = decodeJwt(jwt);
    expect(claims.iss).toBe(APP_ID);
    expect(claims.exp! - claims.iat!).toBe(600);
    expect(claims.iat! - (before - 60)).toBeGreaterThanOrEqual(0);
    expect(claims.iat! - (before - 60)).toBeLessThanOrEqual(2);
  });

  it('fails with 401 at once when the app key is not the registered one', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const error = await failure(api({ privateKey: other.privateKey }).installationToken(7));
    expect(error.status).toBe(401);
    expect(error.message).toBe('GitHub API: create installation token answered 401');
    expect(exchanges().map((r) => r.status)).toEqual([401]);
  });

  it('never puts a token, the JWT or a body in an error message', async () => {
    const errors: AppApiError[] = [];
    const collect = async (promise: Promise<unknown>) => errors.push(await failure(promise));
    const client = api({ retry: { attempts: 2, baseMs: 5 } });
    const token = await client.installationToken(7);
    fake.failNext(1, 422, { path: /check-runs/ });
    await collect(client.createCheckRun(7, repo, run));
    fake.failNext(2, 500, { path: /check-runs/ });
    await collect(client.createCheckRun(7, repo, run));
    fake.failNext(2, 401, { path: /check-runs/ });
    await collect(client.createCheckRun(7, repo, run));
    await collect(client.updateCheckRun(7, repo, 999, { status: 'completed' }));
    await collect(client.createCheckRun(7, repo, run, AbortSignal.abort()));
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await collect(api({ privateKey: other.privateKey }).installationToken(7));
    const silent = await startSilentServer();
    try {
      await collect(api({ apiUrl: silent.url, timeoutMs: 100, retry: { attempts: 1 } }).installationToken(7));
    } finally {
      await stopServer(silent.server);
    }

    expect(errors).toHaveLength(7);
    const issued = fake.requests.map((r) => r.authorization?.replace(/^Bearer /, '') ?? '').filter(Boolean);
    for (const error of errors) {
      const said = `${error.message}\n${String(error)}`;
      expect(error.message).toMatch(/^GitHub API: [^\n]+$/);
      expect(said).not.toContain('ghs_');
      expect(said).not.toContain('eyJ');
      expect(said).not.toContain(token);
      expect(said).not.toMatch(/injected|Bad credentials|Not Found/);
      for (const secret of issued) expect(said).not.toContain(secret);
    }
  });
});

describe('readAppPrivateKey', () => {
  const pkcs8 = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const pkcs1 = keys.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
  const samePrivateKey = (read: ReturnType<typeof readAppPrivateKey>) =>
    expect(read.export({ type: 'pkcs8', format: 'pem' })).toBe(pkcs8);

  it('reads a PKCS#8 PEM, a PKCS#1 PEM as GitHub issues it, and one with its newlines written out', () => {
    expect(pkcs1).toContain('BEGIN RSA PRIVATE KEY');
    samePrivateKey(readAppPrivateKey(pkcs8));
    samePrivateKey(readAppPrivateKey(pkcs1));
    samePrivateKey(readAppPrivateKey(pkcs1.replaceAll('\n', '\\n')));
  });

  it('reads a PEM file by its path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-app-key-'));
    try {
      const path = join(dir, 'app.pem');
      writeFileSync(path, pkcs1);
      samePrivateKey(readAppPrivateKey(path));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses garbage, a broken PEM, a public key and a missing file without repeating the value', () => {
    const body = pkcs1.split('\n')[3] ?? '';
    // Each value, and a piece of it that must not show in the message.
    const cases: [string, string][] = [
      ['garbage-not-a-key-Zm9vYmFy', 'Zm9vYmFy'],
      [`-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----\n`, body.slice(0, 16)],
      [keys.publicKey.export({ type: 'spki', format: 'pem' }) as string, 'PUBLIC'],
      ['/nonexistent/svc/app-key.pem', 'app-key'],
    ];
    for (const [value, piece] of cases) {
      let message = '';
      try {
        readAppPrivateKey(value);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/^the GitHub app private key [^\n]+$/);
      expect(message).not.toContain(piece);
    }
  });
});
