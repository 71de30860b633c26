import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, skipDialect } from '../../../test/helpers/databases.js';
import { startTestApp, type TestApp } from '../../../test/helpers/test-app.js';

const PATH = '/api/action/binary';

async function expectError(response: Response, status: number, message: RegExp) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: string };
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error).toMatch(message);
}

for (const dialect of DIALECTS) {
  describe.skipIf(await skipDialect(dialect, 'binary endpoint tests'))(`GET ${PATH} on ${dialect}`, () => {
    let t: TestApp;
    let free: string;
    let paid: string;
    const tokenA = (claims: Record<string, unknown>, options = {}) =>
      t.issuerA.sign({ repository: 'acme/app', repository_visibility: 'public', ...claims }, options);

    beforeAll(async () => {
      t = await startTestApp({ dialect, monthlyCiRuns: { free: 200, paid: 10000 } });
      free = await t.userWithKey('free@example.test', 'free');
      paid = await t.userWithKey('paid@example.test', 'paid');
    });
    afterAll(() => t.cleanup());

    const usage = async (email: string) => {
      const user = (await t.db.storage.accounts.findUserByEmail(email))!;
      return t.db.storage.usage.ciRunsUsed(
        { kind: 'user', id: user.id },
        new Date().toISOString().slice(0, 7),
      );
    };

    describe('200: the executable, counted as one CI run', () => {
      it('for a public repository proven by a GitHub token on the Free plan', async () => {
        const before = await usage('free@example.test');
        const r = await t.request(PATH, { key: free, headers: { 'X-CodeHostA-OIDC': await tokenA({}) } });
        expect(r.status).toBe(200);
        expect(r.headers.get('content-type')).toBe('application/octet-stream');
        const body = Buffer.from(await r.arrayBuffer());
        expect(body.equals(t.binaryBytes)).toBe(true);
        expect(r.headers.get('content-length')).toBe(String(t.binaryBytes.length));
        expect(r.headers.get('x-svc-sha256')).toBe(createHash('sha256').update(t.binaryBytes).digest('hex'));
        expect(await usage('free@example.test')).toBe(before + 1);
      });

      it('gzipped when the client accepts it, with the digest of the executable itself', async () => {
        const headers = { 'X-CodeHostA-OIDC': await tokenA({}), 'Accept-Encoding': 'gzip, deflate' };
        const r = await t.request(PATH, { key: free, headers });
        expect(r.status).toBe(200);
        expect(r.headers.get('content-encoding')).toBe('gzip');
        const body = gunzipSync(Buffer.from(await r.arrayBuffer()));
        expect(body.equals(t.binaryBytes)).toBe(true);
        expect(r.headers.get('x-svc-size')).toBe(String(t.binaryBytes.length));
        expect(r.headers.get('x-svc-sha256')).toBe(createHash('sha256').update(body).digest('hex'));
      });

      it('in xz when the client asks for it (the CI scripts: 29 MB instead of 44), its q-values obeyed', async () => {
        const get = async (acceptEncoding: string) =>
          t.request(PATH, {
            key: free,
            headers: { 'X-CodeHostA-OIDC': await tokenA({}), 'Accept-Encoding': acceptEncoding },
          });
        const r = await get('xz, gzip;q=0.5');
        expect(r.status).toBe(200);
        expect(r.headers.get('content-encoding')).toBe('xz');
        expect(r.headers.get('content-type')).toBe('application/octet-stream');
        const body = execFileSync('xz', ['-d', '-c'], { input: Buffer.from(await r.arrayBuffer()) });
        expect(body.equals(t.binaryBytes)).toBe(true);
        expect(r.headers.get('x-svc-sha256')).toBe(createHash('sha256').update(body).digest('hex'));
        expect((await get('gzip, xz;q=0')).headers.get('content-encoding')).toBe('gzip');
        expect((await get('gzip;q=1, xz;q=0.5')).headers.get('content-encoding')).toBe('gzip');
        expect((await get('identity')).headers.get('content-encoding')).toBeNull();
      });

      it('for a private repository on a paid plan', async () => {
        const token = await tokenA({ repository_visibility: 'private' });
        expect((await t.request(PATH, { key: paid, headers: { 'X-CodeHostA-OIDC': token } })).status).toBe(
          200,
        );
      });

      it('for a GitLab project public by its claim, or by the GitLab API', async () => {
        t.issuerB.setProjectVisibility('group/sub/tool', 'public');
        const claimed = await t.issuerB.sign({ project_path: 'group/pub', project_visibility: 'public' });
        const asked = await t.issuerB.sign({ project_path: 'group/sub/tool' });
        for (const token of [claimed, asked]) {
          const r = await t.request(PATH, { key: free, headers: { 'X-CodeHostB-OIDC': token } });
          expect(r.status).toBe(200);
        }
        expect(t.issuerB.apiRequests.map((q) => q.path)).toContain('/api/v4/projects/group%2Fsub%2Ftool');
      });

      it('for self-reported repositories on a paid plan', async () => {
        for (const query of ['repo=acme/app', 'codehostb_project=group/sub/project']) {
          expect((await t.request(`${PATH}?${query}`, { key: paid })).status).toBe(200);
        }
      });
    });

    describe('400: repository missing or malformed, or no token on the Free plan', () => {
      it.each([
        ['', /identity token is required on the Free plan/],
        ['?repo=acme/app', /identity token is required on the Free plan/],
        ['?codehostb_project=group/project', /identity token is required on the Free plan/],
      ])('Free plan %s', async (query, message) => {
        await expectError(await t.request(`${PATH}${query}`, { key: free }), 400, message);
      });

      it.each([
        ['', /repository missing/],
        ['?repo=not-a-repo', /malformed repo/],
        ['?repo=a/b/c', /malformed repo/],
        ['?codehostb_project=lonely', /malformed codehostb_project/],
      ])('paid plan %s', async (query, message) => {
        await expectError(await t.request(`${PATH}${query}`, { key: paid }), 400, message);
      });

      it('a valid token without a repository claim', async () => {
        const token = await t.issuerA.sign({ repository_visibility: 'public' });
        await expectError(
          await t.request(PATH, { key: free, headers: { 'X-CodeHostA-OIDC': token } }),
          400,
          /repository missing or malformed/,
        );
      });
    });

    describe('401: bad API key or bad identity token', () => {
      it.each([
        [undefined, /missing API key/],
        ['svc_notarealkeynotarealkeynotarealkey00', /invalid API key/],
        ['Bearer-less', /invalid API key/],
      ])('key %s', async (key, message) => {
        await expectError(await t.request(PATH, { key }), 401, message);
      });

      it('a session cookie alone, for GET and HEAD: a cross-site navigation spends no run', async () => {
        const email = `cookie-${dialect}@example.test`;
        const cookie = await t.session(email, 'a long enough passphrase 42');
        const headers = { cookie, 'X-CodeHostA-OIDC': await tokenA({}) };
        for (const method of ['GET', 'HEAD']) {
          const r = await t.request(PATH, { method, headers });
          expect(r.status).toBe(401);
          if (method === 'GET') await expectError(r, 401, /API key \(Authorization: Bearer\)/);
        }
        expect(await usage(email)).toBe(0);
        // The same user's key is accepted: it is the session that is refused, not the account.
        const key = await t.services.accounts.issueKey(email, 'ci');
        expect(
          (await t.request(PATH, { key, headers: { 'X-CodeHostA-OIDC': headers['X-CodeHostA-OIDC'] } }))
            .status,
        ).toBe(200);
        expect(await usage(email)).toBe(1);
      });

      it('a revoked key', async () => {
        const key = await t.userWithKey('revoked@example.test', 'paid');
        expect((await t.request(`${PATH}?repo=a/b`, { key })).status).toBe(200);
        await t.db.storage.apiKeys.revokeApiKeys(key.slice(0, 12));
        await expectError(await t.request(`${PATH}?repo=a/b`, { key }), 401, /invalid API key/);
      });

      it.each([
        ['wrong audience', { audience: 'someone-else' }, /wrong audience/],
        ['expired', { expiresIn: -120 }, /expired/],
        ['alg none', { alg: 'none' }, /unsupported algorithm/],
        ['HS256', { alg: 'HS256' }, /unsupported algorithm/],
        ['a key not in the JWKS', { foreignKey: true }, /unknown signing key|bad signature/],
      ])('GitHub token: %s', async (_name, options, message) => {
        const token = await tokenA({}, options);
        await expectError(
          await t.request(PATH, { key: free, headers: { 'X-CodeHostA-OIDC': token } }),
          401,
          message,
        );
      });

      it('a token from the other platform’s issuer (wrong issuer)', async () => {
        const token = await t.issuerB.sign({ repository: 'acme/app', repository_visibility: 'public' });
        await expectError(
          await t.request(PATH, { key: free, headers: { 'X-CodeHostA-OIDC': token } }),
          401,
          /invalid GitHub identity token: (wrong issuer|unknown signing key|bad signature)/,
        );
      });

      it('a GitLab token from the wrong issuer, or malformed', async () => {
        const foreign = await t.issuerA.sign({ project_path: 'group/app', project_visibility: 'public' });
        for (const token of [foreign, 'not.a.jwt']) {
          await expectError(
            await t.request(`${PATH}?codehostb_project=group/app`, {
              key: paid,
              headers: { 'X-CodeHostB-OIDC': token },
            }),
            401,
            /invalid GitLab identity token: (wrong issuer|unknown signing key|bad signature|malformed token)/,
          );
        }
      });

      it('a malformed token, even when a self-reported repo would do', async () => {
        await expectError(
          await t.request(`${PATH}?repo=acme/app`, {
            key: paid,
            headers: { 'X-CodeHostA-OIDC': 'not.a.jwt' },
          }),
          401,
          /invalid GitHub identity token/,
        );
      });
    });

    describe('402: private repository on the Free plan', () => {
      it.each(['private', 'internal'])('GitHub %s', async (visibility) => {
        const token = await tokenA({ repository_visibility: visibility });
        await expectError(
          await t.request(PATH, { key: free, headers: { 'X-CodeHostA-OIDC': token } }),
          402,
          new RegExp(`acme/app is ${visibility}`),
        );
      });

      it('GitLab, private by the API, or unknown because the API fails', async () => {
        t.issuerB.setProjectVisibility('group/secret', 'private').setProjectVisibility('group/down', 'error');
        for (const path of ['group/secret', 'group/down']) {
          const token = await t.issuerB.sign({ project_path: path });
          const r = await t.request(PATH, { key: free, headers: { 'X-CodeHostB-OIDC': token } });
          await expectError(r, 402, /Free plan scans public repositories only/);
        }
      });

      it('prefers the GitHub token over a self-reported name', async () => {
        const token = await tokenA({ repository_visibility: 'private' });
        const r = await t.request(`${PATH}?repo=acme/public-one`, {
          key: free,
          headers: { 'X-CodeHostA-OIDC': token },
        });
        await expectError(r, 402, /acme\/app is private/);
      });
    });

    describe('429: monthly CI runs used up', () => {
      it('counts only successful downloads, and says when to retry', async () => {
        const limited = await startTestApp({ dialect, monthlyCiRuns: { free: 2, paid: 3 } });
        try {
          const key = await limited.userWithKey('quota@example.test', 'free');
          const headers = {
            'X-CodeHostA-OIDC': await limited.issuerA.sign({
              repository: 'a/b',
              repository_visibility: 'public',
            }),
          };
          // A failed request (402) does not count.
          const privateToken = await limited.issuerA.sign({
            repository: 'a/b',
            repository_visibility: 'private',
          });
          expect(
            (await limited.request(PATH, { key, headers: { 'X-CodeHostA-OIDC': privateToken } })).status,
          ).toBe(402);
          expect((await limited.request(PATH, { key, headers })).status).toBe(200);
          expect((await limited.request(PATH, { key, headers })).status).toBe(200);
          const r = await limited.request(PATH, { key, headers });
          await expectError(r, 429, /monthly CI runs used up: 2 on the Free plan/);
          const retryAfter = Number(r.headers.get('retry-after'));
          expect(retryAfter).toBeGreaterThan(0);
          expect(retryAfter).toBeLessThanOrEqual(31 * 24 * 3600);
        } finally {
          await limited.cleanup();
        }
      });

      it('20 parallel downloads against a limit of 10 count exactly 10', async () => {
        const limited = await startTestApp({ dialect, monthlyCiRuns: { free: 10, paid: 10 } });
        try {
          const key = await limited.userWithKey('burst@example.test', 'paid');
          const responses = await Promise.all(
            Array.from({ length: 20 }, () => limited.request(`${PATH}?repo=acme/app`, { key })),
          );
          const statuses = responses.map((r) => r.status).sort();
          expect(statuses.filter((s) => s === 200)).toHaveLength(10);
          expect(statuses.filter((s) => s === 429)).toHaveLength(10);
          const user = (await limited.db.storage.accounts.findUserByEmail('burst@example.test'))!;
          expect(
            await limited.db.storage.usage.ciRunsUsed(
              { kind: 'user', id: user.id },
              new Date().toISOString().slice(0, 7),
            ),
          ).toBe(10);
        } finally {
          await limited.cleanup();
        }
      });

      it('team members share the team’s plan and its monthly runs', async () => {
        const limited = await startTestApp({ dialect, monthlyCiRuns: { free: 0, paid: 2 } });
        try {
          const team = { name: 'acme', plan: 'paid' as const };
          const a = await limited.userWithKey('a@acme.test', 'free', team);
          const b = await limited.userWithKey('b@acme.test', 'free', team);
          expect((await limited.request(`${PATH}?repo=acme/x`, { key: a })).status).toBe(200);
          expect((await limited.request(`${PATH}?repo=acme/x`, { key: b })).status).toBe(200);
          expect((await limited.request(`${PATH}?repo=acme/x`, { key: a })).status).toBe(429);
        } finally {
          await limited.cleanup();
        }
      });

      it('starts counting afresh in a new calendar month (UTC)', async () => {
        let now = new Date('2026-01-31T23:59:30Z');
        const limited = await startTestApp({ dialect, monthlyCiRuns: { free: 1, paid: 1 }, now: () => now });
        try {
          const key = await limited.userWithKey('month@example.test', 'paid');
          expect((await limited.request(`${PATH}?repo=a/b`, { key })).status).toBe(200);
          const r = await limited.request(`${PATH}?repo=a/b`, { key });
          expect(r.status).toBe(429);
          expect(r.headers.get('retry-after')).toBe('30');
          now = new Date('2026-02-01T00:00:01Z');
          expect((await limited.request(`${PATH}?repo=a/b`, { key })).status).toBe(200);
        } finally {
          await limited.cleanup();
        }
      });
    });

    describe('a download cut off is not a CI run', () => {
      /**
       * A download over a raw socket, closed once `stopAfter(received, total)` says so (a dying
       * runner, or a client that has every byte and hangs up at once); the body bytes received.
       */
      const download = (url: string, key: string, stopAfter: (received: number, total: number) => boolean) =>
        new Promise<number>((resolve, reject) => {
          const { hostname, port } = new URL(url);
          const socket = connect(Number(port), hostname, () =>
            socket.write(
              `GET ${PATH}?repo=acme/app HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`,
            ),
          );
          let head = Buffer.alloc(0);
          let total = -1;
          let received = 0;
          socket.on('data', (chunk: Buffer) => {
            if (total < 0) {
              head = Buffer.concat([head, chunk]);
              const end = head.indexOf('\r\n\r\n');
              if (end < 0) return;
              total = Number(/content-length: (\d+)/i.exec(head.subarray(0, end).toString())?.[1]);
              received = head.length - end - 4;
            } else {
              received += chunk.length;
            }
            if (stopAfter(received, total)) {
              socket.destroy();
              resolve(received);
            }
          });
          socket.on('error', reject);
          socket.on('close', () => resolve(received));
        });

      it('gives the run back when the client goes away mid-body, and keeps it when every byte arrived', async () => {
        // 16 MiB: far more than the socket buffers hold, so the client can leave mid-body.
        const dir = mkdtempSync(join(tmpdir(), 'svc-binary-'));
        const big = join(dir, 'svc-linux-x64');
        writeFileSync(big, Buffer.alloc(16 << 20, 1));
        const app = await startTestApp({ dialect, binaryFile: big });
        const server = await app.listen();
        try {
          const key = await app.userWithKey('cut@example.test', 'paid');
          const user = (await app.db.storage.accounts.findUserByEmail('cut@example.test'))!;
          const used = () =>
            app.db.storage.usage.ciRunsUsed(
              { kind: 'user', id: user.id },
              new Date().toISOString().slice(0, 7),
            );
          const settledAt = async (expected: number) => {
            for (let i = 0; i < 100 && (await used()) !== expected; i++)
              await new Promise((r) => setTimeout(r, 20));
            return used();
          };

          expect(await download(server.url, key, (received) => received >= 1 << 20)).toBeLessThan(16 << 20);
          expect(await settledAt(0)).toBe(0);
          expect(app.logs.join('')).toContain('CI run given back: the download did not complete');

          // Hanging up the moment the last byte arrives, before the server has read its stream's
          // end: still a complete download (ten times, the race goes either way).
          for (let i = 0; i < 10; i++) {
            expect(await download(server.url, key, (received, total) => received >= total)).toBe(16 << 20);
          }
          await new Promise((r) => setTimeout(r, 200));
          expect(await settledAt(10)).toBe(10);
        } finally {
          await server.close();
          await app.cleanup();
          rmSync(dir, { recursive: true, force: true });
        }
      });
    });

    describe('503: the executable is not published', () => {
      it('answers 503 and counts nothing', async () => {
        const bare = await startTestApp({ dialect, published: false });
        try {
          const key = await bare.userWithKey('early@example.test', 'paid');
          await expectError(await bare.request(`${PATH}?repo=a/b`, { key }), 503, /not published/);
          const user = (await bare.db.storage.accounts.findUserByEmail('early@example.test'))!;
          expect(
            await bare.db.storage.usage.ciRunsUsed(
              { kind: 'user', id: user.id },
              new Date().toISOString().slice(0, 7),
            ),
          ).toBe(0);
        } finally {
          await bare.cleanup();
        }
      });
    });

    it('logs at most 200 characters of a self-reported name or a path, whatever a client sends', async () => {
      const long = `acme/${'x'.repeat(15_000)}`;
      t.logs.length = 0;
      await t.request(`${PATH}?repo=${long}&codehostb_project=${long}`, { key: paid });
      await t.request(`/api/${'y'.repeat(15_000)}`, { key: paid });
      const lines = t.logs
        .join('')
        .split('\n')
        .filter((l) => l.includes('"msg":"request"'));
      expect(lines).toHaveLength(2);
      for (const line of lines) expect(line.length).toBeLessThan(1000);
      expect(lines[0]).toContain(`repo=${long.slice(0, 200)}...(${long.length} chars)`);
      expect(lines[1]).toContain(`...(${'/api/'.length + 15_000} chars)`);
    });

    it('keeps API keys and identity tokens out of the logs and the database file', async () => {
      const token = await tokenA({});
      await t.request(`${PATH}?repo=acme/app&token=${token}`, {
        key: free,
        headers: { 'X-CodeHostA-OIDC': token },
      });
      const logs = t.logs.join('');
      expect(logs).toContain('"path":"/api/action/binary"');
      expect(logs).toContain('token=[redacted]');
      for (const secret of [free, paid, token]) expect(logs).not.toContain(secret);
      if (dialect === 'sqlite') {
        const file = t.db.url.replace(/^sqlite:/, '');
        const stored = [file, `${file}-wal`].map((f) => {
          try {
            return readFileSync(f).toString('latin1');
          } catch {
            return '';
          }
        });
        expect(stored.join('').length).toBeGreaterThan(0);
        for (const key of [free, paid]) {
          expect(stored.join('')).not.toContain(key);
          expect(stored.join('')).toContain(key.slice(0, 12)); // the display prefix is stored, the key is not
        }
      }
    });
  });
}
