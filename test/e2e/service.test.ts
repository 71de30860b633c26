import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRegistries } from '../helpers/fake-registries.js';
import { startServiceProcess } from '../helpers/service-process.js';
import { runSvc } from '../helpers/svc-cli.js';

let dir: string;
let env: Record<string, string>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-service-'));
  // A folder that does not exist yet: the first command creates the database with its migrations.
  env = {
    SVC_DATABASE_URL: `sqlite:${join(dir, 'data', 'svc.db')}`,
    SVC_BINARY_PATH: join(dir, 'not-published'),
  };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('svc admin', () => {
  it('manages users, plans, teams and keys; prints a new key alone on stdout', async () => {
    // The one-time link where the user sets a password, alone on stdout; what it is, on stderr.
    const created = await runSvc(['admin', 'create-user', '--email', 'Ops@Example.test'], { env });
    expect(created.stdout).toMatch(/^http:\/\/localhost:\d+\/auth\/set-password\?token=[A-Za-z0-9_-]{43}\n$/);
    expect(created.stderr).toMatch(/^created user ops@example.test \(free\);.*\n.*valid 24 h and works once/);
    const key = await runSvc(['admin', 'create-key', '--email', 'ops@example.test', '--name', 'ci'], { env });
    expect(key.code).toBe(0);
    expect(key.stdout).toMatch(/^svc_[0-9A-Za-z]{40}\n$/);
    expect(key.stderr).toBe('');
    expect(
      (await runSvc(['admin', 'set-plan', '--email', 'ops@example.test', '--plan', 'paid'], { env })).code,
    ).toBe(0);
    expect((await runSvc(['admin', 'create-team', '--name', 'acme', '--mode', 'warn'], { env })).stdout).toBe(
      'created team acme (free, hook mode warn)\n',
    );
    expect(
      (await runSvc(['admin', 'add-member', '--team', 'acme', '--email', 'ops@example.test'], { env }))
        .stdout,
    ).toBe('ops@example.test is now a member of acme\n');
    expect(
      (
        await runSvc(['admin', 'add-member', '--team', 'acme', '--email', 'ops@example.test', '--owner'], {
          env,
        })
      ).stdout,
    ).toBe('ops@example.test is now an owner of acme\n');
    expect(
      (await runSvc(['admin', 'set-team-mode', '--team', 'acme', '--mode', 'block'], { env })).stdout,
    ).toBe('team acme hook mode: block\n');
    const usage = await runSvc(['admin', 'usage', '--email', 'ops@example.test'], { env });
    expect(usage.stdout).toMatch(
      /^ops@example.test \(team acme\): 0 of 200 CI runs used in \d{4}-\d{2} on the free plan\n$/,
    );
    const revoke = await runSvc(['admin', 'revoke-key', '--prefix', key.stdout.slice(0, 12)], { env });
    expect(revoke.stdout).toBe('revoked 1 key\n');
    // The database file holds the key's hash and display prefix, never the key.
    const db = readFileSync(join(dir, 'data', 'svc.db')).toString('latin1');
    expect(db).not.toContain(key.stdout.trim());
    // ... and the link's hash, never its token.
    expect(db).not.toContain(new URL(created.stdout.trim()).searchParams.get('token'));
  });

  it('user already exists: a second create-user for the same address fails with one line and exit 2', async () => {
    // Its own user: this test must not lean on the one the test above creates (shuffled order, or -t).
    const email = 'twice@example.test';
    expect((await runSvc(['admin', 'create-user', '--email', email], { env })).code).toBe(0);
    const r = await runSvc(['admin', 'create-user', '--email', 'Twice@Example.test'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`svc: user already exists: ${email}\n`);
  });

  it.each([
    [
      ['admin', 'create-key', '--email', 'nobody@example.test'],
      /^svc: user not found: nobody@example.test\n$/,
    ],
    [['admin', 'create-user', '--email', 'x@example.test', '--plan', 'gold'], /--plan must be free or paid/],
    [['admin', 'create-user'], /--email is required/],
    [['admin', 'frob'], /unknown admin command "frob"/],
    [['admin', 'revoke-key', '--prefix', 'svc_'], /--prefix must start with svc_/],
    [['admin', 'usage', '--email', 'a@b.test', '--bogus'], /Unknown option --bogus/],
  ])('%j fails with one line and exit 2', async (args, message) => {
    const r = await runSvc(args, { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('svc serve', () => {
  // Each test starts its own server: the SIGTERM test stops the one it is given, so a shared server
  // would leave the other test talking to a dead process whenever the shuffled order puts it second.
  async function waitFor(read: () => string, pattern: RegExp): Promise<string> {
    // Log lines reach the pipe a moment after the response; poll instead of sleeping a fixed time.
    for (let i = 0; i < 200 && !pattern.test(read()); i++) await new Promise((r) => setTimeout(r, 25));
    return read();
  }

  it('answers the health check and authenticated requests, and logs each request without its key', async () => {
    await runSvc(['admin', 'create-user', '--email', 'serve@example.test', '--plan', 'paid'], { env });
    const key = (
      await runSvc(['admin', 'create-key', '--email', 'serve@example.test'], { env })
    ).stdout.trim();
    const svc = await startServiceProcess(env, 'paid', { capture: true, key });
    try {
      expect(await (await fetch(`${svc.base}/healthz`)).json()).toMatchObject({ status: 'ok' });
      const account = await fetch(`${svc.base}/api/account`, { headers: { authorization: `Bearer ${key}` } });
      expect(await account.json()).toMatchObject({
        email: 'serve@example.test',
        plan: 'paid',
        ciRuns: { used: 0 },
      });
      const missing = await fetch(`${svc.base}/api/account`);
      expect(missing.status).toBe(401);
      expect(await missing.json()).toEqual({ error: 'missing API key' });
      // No executable at SVC_BINARY_PATH: 503, in the error envelope.
      const binary = await fetch(`${svc.base}/api/action/binary?repo=a/b`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(binary.status).toBe(503);
      const output = await waitFor(svc.output, /"path":"\/api\/action\/binary"/);
      expect(output).toMatch(/"path":"\/api\/account".*"status":200/);
      expect(output).not.toContain(key);
    } finally {
      await svc.stop();
    }
  });

  it('npm start: says where it listens and what to open, warns of an unbuilt executable, and stops on a SIGTERM sent to npm', async () => {
    const port = 3900 + Math.floor(Math.random() * 90);
    const child = spawn('npm', ['start', '--silent'], {
      cwd: join(import.meta.dirname, '..', '..'),
      env: { ...process.env, ...env, PORT: String(port), SVC_BASE_URL: `http://localhost:${port}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => {
      stderr += b;
    });
    child.stdout.resume();
    try {
      const said = await waitFor(() => stderr, /open http/);
      expect(said).toContain(
        `svc: listening on http://127.0.0.1:${port} (database: sqlite); open http://localhost:${port}/ to sign in.`,
      );
      expect(said).toContain(
        `svc: warning: the scanner executable ${env.SVC_BINARY_PATH} is not built: CI downloads (/api/action/binary) answer 503 until you run \`npm run build:binary\`.`,
      );
      expect((await fetch(`http://127.0.0.1:${port}/livez`)).status).toBe(200);
      // What a process manager or a terminal's close does: SIGTERM to npm, not to the server.
      child.kill('SIGTERM');
      await once(child, 'exit');
      let down = false;
      for (let i = 0; i < 100 && !down; i++) {
        down = await fetch(`http://127.0.0.1:${port}/livez`).then(
          () => false,
          () => true,
        );
        if (!down) await new Promise((r) => setTimeout(r, 50));
      }
      expect(down, 'the server stopped with npm').toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('shuts down gracefully on SIGTERM with exit 0', async () => {
    const svc = await startServiceProcess(env, 'free', { capture: true });
    expect(svc.running()).toBe(true);
    await svc.stop(); // SIGTERM
    expect(await svc.exited).toBe(0);
    expect(svc.output()).toMatch(/"signal":"SIGTERM".*"shutting down"/);
  });

  it('on SIGTERM finishes a request in flight, refuses new connections, and cuts off a client that stopped reading', async () => {
    // A hook check that waits on a registry that never answers (it allows at its 4.5 s budget), and a
    // 64 MiB download to a client that reads nothing: the first must finish, the second must not
    // hold the stop past its deadline.
    const registries = await FakeRegistries.start();
    registries.setBehavior('npm', 'hang');
    const binary = join(dir, 'svc-64mib');
    writeFileSync(binary, Buffer.alloc(64 * 1024 * 1024));
    const svc = await startServiceProcess({ ...env, ...registries.env, SVC_BINARY_PATH: binary }, 'paid', {
      capture: true,
    });
    const stalled = new Promise<IncomingMessage>((resolve, reject) => {
      get(
        `${svc.base}/api/action/binary?repo=a/b`,
        { headers: { authorization: `Bearer ${svc.key}` } },
        (res) => {
          res.pause(); // reads nothing more: the service's writes stop once the socket buffers are full
          resolve(res);
        },
      ).on('error', reject);
    });
    try {
      expect((await stalled).statusCode).toBe(200);
      const inFlight = fetch(`${svc.base}/api/hooks/agent-b`, {
        method: 'POST',
        headers: { authorization: `Bearer ${svc.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'npm install some-new-package' } }),
      });
      await new Promise((r) => setTimeout(r, 300)); // the hook request has reached the service
      svc.process.kill('SIGTERM');
      const answer = await inFlight;
      expect(answer.status).toBe(200);
      // Let through as Claude Code is: no decision (the user's prompts decide), a note saying what was checked.
      expect(await answer.json()).toEqual({ systemMessage: expect.stringMatching(/^svc: /) });
      await expect(fetch(`${svc.base}/healthz`)).rejects.toThrow();
      expect(await svc.exited).toBe(0);
      expect(svc.output()).toContain('requests still in flight at the stop deadline: connections closed');
    } finally {
      await svc.stop();
      (await stalled.catch(() => null))?.destroy();
      await registries.stop();
    }
  });

  it('refuses a bad setting with one line naming it', async () => {
    const r = await runSvc(['serve'], { env: { ...env, PORT: 'eighty' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^svc: invalid PORT: .*\n$/);
  });
});
