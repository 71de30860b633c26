import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/auth/api-keys.js';
import { openTestDatabase, POSTGRES_URL, skipDialect, type TestDatabase } from '../helpers/databases.js';
import { fakeCodehostToken } from '../helpers/fake-secrets.js';
import { type Sample, sleep, startLoad } from '../helpers/load.js';
import { startServiceProcess } from '../helpers/service-process.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { startTestApp } from '../helpers/test-app.js';

const CLOSED = 'http://127.0.0.1:9';
const OFFLINE_REGISTRIES = {
  SVC_NPM_REGISTRY_URL: CLOSED,
  SVC_PYPI_URL: CLOSED,
  SVC_CRATES_URL: CLOSED,
  SVC_GOPROXY_URL: CLOSED,
  SVC_NUGET_URL: CLOSED,
  SVC_OSV_URL: CLOSED,
};

const isApi = (s: Sample) => !s.route.startsWith('hook');
const isHookA = (s: Sample) => s.route === 'hook';
const isHookB = (s: Sample) => s.route === 'hook-b';
const statuses = (samples: Sample[]) => [...new Set(samples.map((s) => s.status))].sort();

/** The answer every API route gives while the database is away. */
function expectDatabaseUnavailable(samples: Sample[]) {
  for (const s of samples) {
    expect(s.status, `${s.route}: ${s.body}`).toBe(503);
    expect(JSON.parse(s.body)).toEqual({ error: 'database unavailable' });
    expect(Number(s.retryAfter)).toBeGreaterThan(0);
  }
}

/**
 * Claude Code's hook always answers 200 with no permission decision at all (Claude Code's own prompts
 * decide), and `why` as its note when it says one.
 */
function expectClaudeUndecided(samples: Sample[], why?: RegExp) {
  for (const s of samples) {
    expect(s.status).toBe(200);
    const answer = JSON.parse(s.body) as { systemMessage?: string };
    expect(Object.keys(answer).filter((k) => k !== 'systemMessage')).toEqual([]);
    expect(s.body).not.toContain('"allow"');
    if (why) expect(answer.systemMessage).toMatch(why);
  }
}

/** A hook always answers 200 allow (Cursor's format); `why` is what it says when not checked. */
function expectHooksAllow(samples: Sample[], why?: RegExp) {
  for (const s of samples) {
    expect(s.status).toBe(200);
    const answer = JSON.parse(s.body) as { permission: string; user_message: string };
    expect(answer.permission).toBe('allow');
    if (why) expect(answer.user_message).toMatch(why);
  }
}

describe.skipIf(await skipDialect('postgres', 'database outage test'))(
  'a PostgreSQL outage under load (svc serve as its own process)',
  () => {
    let db: TestDatabase;
    let proxy: TcpProxy;
    let service: Awaited<ReturnType<typeof startServiceProcess>>;
    let dir: string;
    const applicationName = `svc-outage-${process.pid}`;

    beforeAll(async () => {
      db = await openTestDatabase('postgres');
      proxy = await TcpProxy.start(
        Number(new URL(POSTGRES_URL).port || 5432),
        new URL(POSTGRES_URL).hostname,
      );
      dir = mkdtempSync(join(tmpdir(), 'svc-outage-'));
      writeFileSync(join(dir, 'svc-linux-x64'), 'stand-in executable\n');
      // The service reaches PostgreSQL only through the proxy, in this test's own schema.
      const url = new URL(POSTGRES_URL);
      url.host = `127.0.0.1:${proxy.port}`;
      url.searchParams.set('options', `-c search_path=${db.schema}`);
      url.searchParams.set('application_name', applicationName);
      // The key is made here: `svc admin` would block this process, and with it the proxy.
      const user = await db.storage.accounts.createUser({ email: 'outage@example.test', plan: 'paid' });
      const { key, prefix, hash } = generateApiKey();
      await db.storage.apiKeys.createApiKey({ userId: user.id, name: 'outage', prefix, hash });
      service = await startServiceProcess(
        {
          ...OFFLINE_REGISTRIES,
          SVC_DATABASE_URL: url.toString(),
          SVC_BINARY_PATH: join(dir, 'svc-linux-x64'),
          SVC_RATE_LIMIT_API: '1000000',
          SVC_PAID_MONTHLY_CI_RUNS: '1000000',
        },
        'paid',
        { capture: true, key },
      );
    });
    afterAll(async () => {
      await service?.stop();
      await proxy?.stop();
      await db?.cleanup();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('stays up: 503 with Retry-After while the database is away, allow from hooks, recovery without a restart', async () => {
      const auth = { authorization: `Bearer ${service.key}` };
      const load = startLoad(
        service.base,
        [
          { route: 'account', path: '/api/account', init: { headers: auth } },
          { route: 'binary', path: '/api/action/binary?repo=acme/app', init: { headers: auth } },
          {
            route: 'hook',
            path: '/api/hooks/agent-a',
            init: {
              method: 'POST',
              headers: { ...auth, 'content-type': 'application/json' },
              body: JSON.stringify({ command: 'npm install left-pad' }),
            },
          },
          {
            route: 'hook-b',
            path: '/api/hooks/agent-b',
            init: {
              method: 'POST',
              headers: { ...auth, 'content-type': 'application/json' },
              body: JSON.stringify({
                hook_event_name: 'PreToolUse',
                tool_name: 'Bash',
                tool_input: { command: 'npm install left-pad' },
              }),
            },
          },
        ],
        6,
      );
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      try {
        // 1. Steady load.
        const t0 = Date.now();
        await load.answeredSince(t0, 30);

        // 2. The server ends every connection of the service, busy or idle, as a restart does
        //    ("terminating connection due to administrator command", 57P01), three times.
        const t1 = Date.now();
        let terminated = 0;
        for (let i = 0; i < 3; i++) {
          const { rows } = await admin.query(
            'select pg_terminate_backend(pid) as done from pg_stat_activity where application_name = $1',
            [applicationName],
          );
          terminated += rows.filter((r) => r.done).length;
          await sleep(300);
        }
        expect(terminated).toBeGreaterThan(0);
        await sleep(700);

        // 3. The database is unreachable: connections reset, new ones refused.
        const t2 = Date.now();
        await proxy.cut();
        await sleep(1000);
        await load.answeredSince(t2 + 200, 30);
        const health = await fetch(`${service.base}/healthz`);
        expect(health.status).toBe(503);
        expect(await health.json()).toMatchObject({ status: 'unavailable', database: 'unreachable' });
        // Liveness does not need the database: a balancer keeps the instance in rotation.
        expect((await fetch(`${service.base}/livez`)).status).toBe(200);

        // 4. It comes back: the service recovers by itself.
        const t3 = Date.now();
        await proxy.restore();
        let recoveredAt = 0;
        while (Date.now() - t3 < 10_000) {
          const r = await fetch(`${service.base}/api/account`, { headers: auth });
          if (r.status === 200) {
            recoveredAt = Date.now();
            break;
          }
          await sleep(50);
        }
        expect(recoveredAt, 'the service answered 200 again within 10 s').toBeGreaterThan(0);
        const t4 = Date.now();
        await load.answeredSince(t4, 30);
        const t5 = Date.now();
        await load.stop();

        const all = load.samples;
        expect(service.running()).toBe(true);
        expect(all.filter((s) => s.status === 0 || (s.status >= 500 && s.status !== 503))).toEqual([]);

        const steadyBefore = load.between(t0, t1);
        const afterRecovery = load.between(t4, t5);
        for (const steady of [steadyBefore, afterRecovery]) {
          expect(steady.length).toBeGreaterThan(10);
          expect(statuses(steady.filter(isApi))).toEqual([200]);
          expectHooksAllow(steady.filter(isHookA), /nothing risky|not fully checked/);
          expectClaudeUndecided(steady.filter(isHookB), /nothing risky|not fully checked/);
        }
        // Terminated connections cost at most a 503 for the queries they were running.
        const terminating = load.between(t1, t2);
        expect(statuses(terminating.filter(isApi)).every((s) => s === 200 || s === 503)).toBe(true);
        expectDatabaseUnavailable(terminating.filter((s) => isApi(s) && s.status === 503));
        expectHooksAllow(terminating.filter(isHookA));
        expectClaudeUndecided(terminating.filter(isHookB));

        // While it is away, after the first moments: 503 for the API, allow for hooks, saying why.
        const away = load.between(t2 + 200, t3);
        expect(away.filter(isApi).length).toBeGreaterThan(10);
        expectDatabaseUnavailable(away.filter(isApi));
        expectHooksAllow(away.filter(isHookA), /database is unavailable/);
        // Claude Code's exact answer while the database is away: a note, no decision.
        expect(away.filter(isHookB).length).toBeGreaterThan(0);
        for (const s of away.filter(isHookB)) {
          expect(JSON.parse(s.body)).toEqual({
            systemMessage: "svc: command not checked: the service's database is unavailable",
          });
        }

        // The broken connections were logged, and nothing reached the process's uncaught handler.
        const output = service.output();
        expect(output).toContain('database connection lost');
        expect(output).not.toMatch(/Emitted 'error'|Uncaught|unhandled error/);
        console.log(
          `outage test: ${all.length} requests, ${terminated} connections terminated, ` +
            `${away.length} answered during the outage, recovered ${recoveredAt - t3} ms after the database returned`,
        );
      } finally {
        await load.stop();
        await admin.end();
      }
    });
  },
);

describe('a SQLite database locked by another process', () => {
  let t: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    t = await startTestApp({ dialect: 'sqlite' });
  });
  afterAll(() => t.cleanup());

  it('answers 503 (not 500) once the lock outlasts the busy timeout, and 200 after', async () => {
    const key = await t.userWithKey('locked@example.test', 'paid');
    const holder = new SqliteDatabase(t.db.url.slice('sqlite:'.length));
    try {
      holder.exec('begin immediate');
      const locked = await t.request('/api/action/binary?repo=acme/app', { key });
      expect(locked.status).toBe(503);
      expect(locked.headers.get('retry-after')).toBe('5');
      expect(await locked.json()).toEqual({ error: 'database unavailable' });
      // Hooks still answer: the write of the decision waits, the verdict does not depend on it.
      const hook = await t.request('/api/hooks/agent-a', {
        key,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ command: 'npm install left-pad' }),
      });
      expect(hook.status).toBe(200);
      expect(await hook.json()).toMatchObject({ permission: 'allow' });
      // A token pasted into the path of a request that fails so is masked in the warning's path too.
      const token = fakeCodehostToken(61);
      const cancel = await t.request(`/api/scans/${token}/cancel`, { key, method: 'POST' });
      expect(cancel.status).toBe(503);
      const warning = t.logs
        .join('')
        .split('\n')
        .filter((l) => l.includes('"msg":"database unavailable"'));
      expect(warning.some((l) => l.includes('"path":"/api/scans/'))).toBe(true);
      expect(t.logs.join('')).not.toContain(token);
      holder.exec('rollback');
      expect((await t.request('/api/action/binary?repo=acme/app', { key })).status).toBe(200);
    } finally {
      holder.close();
    }
  });
});
