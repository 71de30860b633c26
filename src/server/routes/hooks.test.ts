import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRegistries } from '../../../test/helpers/fake-registries.js';
import { startTestApp, type TestApp } from '../../../test/helpers/test-app.js';

const OLD = new Date('2020-01-01T00:00:00Z');
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);
const hoursAgo = (n: number) => new Date(Date.now() - n * 3_600_000);

/** app.request() may answer synchronously; always a promise here. */
const req = (app: TestApp['app'], ...args: Parameters<TestApp['app']['request']>) =>
  Promise.resolve(app.request(...args));

let registries: FakeRegistries;
let t: TestApp;
let key: string;

beforeAll(async () => {
  registries = await FakeRegistries.start();
  registries
    .addPackage('npm', 'lodash', { versions: { '4.17.21': OLD } })
    .addPackage('npm', 'left-pad-ng', { versions: { '1.0.0': daysAgo(2) } })
    .addPackage('npm', 'steady', { versions: { '1.0.0': OLD, '2.0.0': hoursAgo(5) } })
    .addPackage('npm', 'lodahs', { versions: { '1.0.0': OLD } })
    .addPackage('npm', 'evil-pkg', { versions: { '1.0.0': OLD } })
    .addMalware('npm', 'evil-pkg', 'MAL-2025-4242')
    .addPackage('PyPI', 'requests', { versions: { '2.31.0': OLD } })
    .addPackage('npm', 'flaky', { versions: { '1.0.0': OLD } })
    .addPackage('npm', 'broken', { versions: { '1.0.0': OLD } })
    .addPackage('npm', 'garbled', { versions: { '1.0.0': OLD } })
    .setBehavior('npm', 'hang', 'flaky')
    .setBehavior('npm', 500, 'broken')
    .setBehavior('npm', 'not-json', 'garbled');
  t = await startTestApp({ registries: registries.urls });
  key = await t.userWithKey('agent@example.test', 'free');
});
afterAll(async () => {
  await t.cleanup();
  await registries.stop();
});

const hookA = (
  command: unknown,
  init: { key?: string; query?: string; headers?: Record<string, string> } = {},
) =>
  req(
    t.app,
    `/api/hooks/agent-a${init.query ?? ''}`,
    {
      method: 'POST',
      headers: {
        authorization: `Bearer ${init.key ?? key}`,
        'content-type': 'application/json',
        ...init.headers,
      },
      body:
        typeof command === 'string'
          ? JSON.stringify({ command, hook_event_name: 'beforeShellExecution' })
          : JSON.stringify(command),
    },
    { incoming: { socket: { remoteAddress: '192.0.2.50' } } },
  ).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }));

/** Claude Code's answer: a decision (deny, ask) in hookSpecificOutput, or none and perhaps a note. */
type ClaudeAnswer = { hookSpecificOutput?: Record<string, string>; systemMessage?: string };

const hookB = (
  command: string,
  init: { query?: string; headers?: Record<string, string>; tool?: string } = {},
) =>
  req(
    t.app,
    `/api/hooks/agent-b${init.query ?? ''}`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
      body: JSON.stringify({
        hook_event_name: 'PreToolUse',
        tool_name: init.tool ?? 'Bash',
        tool_input: { command },
      }),
    },
    { incoming: { socket: { remoteAddress: '192.0.2.51' } } },
  ).then(async (r) => ({ status: r.status, body: (await r.json()) as ClaudeAnswer }));

describe('Cursor (beforeShellExecution)', () => {
  it('allows a command that is not an install at once, and stores nothing', async () => {
    const before = registries.requests.length;
    const r = await hookA('npm run install && git status');
    expect(r).toEqual({
      status: 200,
      body: {
        permission: 'allow',
        user_message: 'svc: not a package install',
        agent_message: 'svc: not a package install',
        userMessage: 'svc: not a package install',
        agentMessage: 'svc: not a package install',
      },
    });
    expect(registries.requests.length).toBe(before);
  });

  it('allows an established package', async () => {
    const r = await hookA('cd app && npm install lodash@^4.17');
    expect(r.body.permission).toBe('allow');
    expect(r.body.agent_message).toBe('svc: checked `lodash`: nothing risky found');
  });

  it.each([
    ['npm i reakt-dom-utils-missing', /does not exist on npm/],
    ['npm i evil-pkg', /`evil-pkg` is known malware \(MAL-2025-4242\)/],
    ['npm i left-pad-ng', /first published 2 days ago \(under 7 days\)/],
    ['npm i steady@2.0.0', /`steady@2\.0\.0` was published 5 hours ago \(under 48 hours\)/],
    ['npm install lodahs', /`lodahs` looks like `lodash`/],
  ])('denies %s in block mode, saying why', async (command, reason) => {
    const r = await hookA(command);
    expect(r.body.permission).toBe('deny');
    expect(r.body.user_message).toMatch(reason);
    expect(r.body.agent_message).toBe(r.body.user_message);
  });

  it('does not call a package missing from the public registry risky when the command names its own', async () => {
    const r = await hookA('npm i @acme/internal-tools --registry https://npm.acme.test');
    expect(r.body.permission).toBe('allow');
    expect(r.body.user_message).toMatch(
      /`@acme\/internal-tools` was not fully checked: it comes from a registry the command names, not npm/,
    );
    expect((await hookA('npm i @acme/internal-tools')).body.permission).toBe('deny');
  });

  it('asks instead in warn mode, by query or by header', async () => {
    const warned = await hookA('npm i evil-pkg', { query: '?mode=warn' });
    expect(warned.body.permission).toBe('ask');
    expect(warned.body.user_message).toBe(
      'svc: `evil-pkg` looks risky; confirm before installing\n- `evil-pkg` is known malware (MAL-2025-4242)',
    );
    expect((await hookA('npm i evil-pkg', { headers: { 'X-Svc-Mode': 'warn' } })).body.permission).toBe(
      'ask',
    );
  });

  it('leaves a package whose registry fails unjudged, says so, and still decides within the budget', async () => {
    for (const [name, why] of [
      ['broken', /server error \(HTTP 500\)/],
      ['garbled', /the response is not JSON/],
    ] as const) {
      const r = await hookA(`npm i ${name}`);
      expect(r.body.permission).toBe('allow');
      expect(r.body.user_message).toMatch(
        new RegExp(`\`${name}\` was not fully checked: npm did not answer \\(${why.source}`),
      );
    }
    // `flaky` hangs: only the decision budget can end the wait, and "out of time" says it did. The
    // time that takes is `npm run bench:hooks`'s figure, not this test's.
    const r = await hookA('npm i flaky lodash');
    expect(r.body.permission).toBe('allow');
    expect(r.body.user_message).toMatch(/`flaky` was not fully checked: npm did not answer \(out of time\)/);
  });

  it('answers a cached install without asking the registries again', async () => {
    await hookA('pip install requests==2.31.0');
    const before = registries.requests.length;
    const r = await hookA('python -m pip install "requests==2.31.0"');
    expect(r.body.permission).toBe('allow');
    expect(registries.requests.length).toBe(before);
  });
});

describe('Claude Code (PreToolUse, Bash)', () => {
  it('answers in its own format', async () => {
    const r = await hookB('npm i evil-pkg');
    expect(r.body).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringMatching(/known malware/),
      },
    });
    expect(
      (await hookB('npm i evil-pkg', { query: '?mode=warn' })).body.hookSpecificOutput?.permissionDecision,
    ).toBe('ask');
    // What svc lets through gets no decision: Claude Code's own permission rules and prompts decide.
    expect((await hookB('ls -la')).body).toEqual({});
    expect((await hookB('npm i lodash')).body).toEqual({
      systemMessage: 'svc: checked `lodash`: nothing risky found',
    });
  });

  it("does not judge a here-document's body, but judges the commands around it", async () => {
    const script = "cat <<'EOF' > setup.sh\nnpm install evil-pkg\nEOF";
    expect((await hookB(script)).body).toEqual({});
    const chained = await hookB(`${script.replace('> setup.sh', '> setup.sh && npm i lodash')}\necho done`);
    expect(chained.body).toEqual({ systemMessage: 'svc: checked `lodash`: nothing risky found' });
    const after = await hookB(`${script}\nnpm i evil-pkg`);
    expect(after.body.hookSpecificOutput?.permissionDecision).toBe('deny');
  });

  it('judges a here-document that a shell runs: fed to one, or written to a script the line runs', async () => {
    for (const line of [
      "bash <<'EOF'\nnpm install evil-pkg\nEOF",
      "cat <<'EOF' > setup.sh\nnpm install evil-pkg\nEOF\nbash setup.sh",
      "tee setup.sh <<'EOF' >/dev/null\nnpm install evil-pkg\nEOF\nbash setup.sh",
    ]) {
      expect((await hookB(line)).body.hookSpecificOutput?.permissionDecision).toBe('deny');
    }
  });

  it('leaves tools other than Bash to the user: no decision, nothing said', async () => {
    const r = await hookB('npm i evil-pkg', { tool: 'Write' });
    expect(r).toEqual({ status: 200, body: {} });
  });
});

describe('team mode', () => {
  it("a member always gets the team's mode, whatever the request asks", async () => {
    const warnKey = await t.userWithKey('w@team.test', 'free', { name: 'warners', plan: 'free' });
    await t.db.storage.accounts.setTeamHookMode('warners', 'warn');
    expect((await hookA('npm i evil-pkg', { key: warnKey })).body.permission).toBe('ask');
    const blockKey = await t.userWithKey('b@team.test', 'free', { name: 'blockers', plan: 'free' });
    expect((await hookA('npm i evil-pkg', { key: blockKey, query: '?mode=warn' })).body.permission).toBe(
      'deny',
    );
  });
});

describe('never in the way: every failure allows the command', () => {
  it.each([
    [
      'a wrong key',
      () => hookA('npm i evil-pkg', { key: 'svc_wrongwrongwrongwrongwrongwrongwrong1' }),
      /the API key was not accepted/,
    ],
    [
      'no key',
      () =>
        req(t.app, '/api/hooks/agent-a', { method: 'POST', body: '{"command":"npm i evil-pkg"}' }).then(
          async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }),
        ),
      /no API key was sent/,
    ],
    [
      'a malformed body',
      () =>
        req(t.app, '/api/hooks/agent-a', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}` },
          body: '{not json',
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> })),
      /holds no shell command/,
    ],
    ['a body without a command', () => hookA({ cwd: '/x' }), /holds no shell command/],
    [
      'a 10 MB body',
      () =>
        req(t.app, '/api/hooks/agent-a', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}` },
          body: JSON.stringify({ command: `npm i evil-pkg ${'x'.repeat(10 * 1024 * 1024)}` }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> })),
      /larger than 1048576 bytes/,
    ],
  ])('allows with a reason for %s', async (_name, call, why) => {
    const r = await call();
    expect(r.status).toBe(200);
    expect(r.body.permission).toBe('allow');
    expect(r.body.user_message).toMatch(/^svc: command not checked: /);
    expect(r.body.user_message).toMatch(why);
    expect(r.body.user_message).not.toContain('svc_wrong');
  });

  it('allows, saying so, once rate limited', async () => {
    const limited = await startTestApp({ registries: registries.urls, rateLimits: { api: 2 } });
    try {
      const k = await limited.userWithKey('rl@example.test');
      const call = () =>
        req(
          limited.app,
          '/api/hooks/agent-a',
          { method: 'POST', headers: { authorization: `Bearer ${k}` }, body: '{"command":"ls"}' },
          { incoming: { socket: { remoteAddress: '192.0.2.99' } } },
        ).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }));
      await call();
      await call();
      const third = await call();
      expect(third.status).toBe(200);
      expect(third.body).toMatchObject({
        permission: 'allow',
        user_message: expect.stringMatching(/rate limited/),
      });
    } finally {
      await limited.cleanup();
    }
  });
});

/** One Claude Code call with a raw body and headers, as Claude Code's hook would send it (or fail to). */
const rawB = (app: TestApp['app'], body: string, headers: Record<string, string>) =>
  req(
    app,
    '/api/hooks/agent-b',
    { method: 'POST', headers, body },
    {
      incoming: { socket: { remoteAddress: '192.0.2.52' } },
    },
  ).then(async (r) => ({ status: r.status, body: (await r.json()) as ClaudeAnswer }));

const bashInput = (command: string) =>
  JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });

describe('Claude Code never in the way: each failure answers no decision, with the reason as a note', () => {
  const json = { 'content-type': 'application/json' };
  it.each<[string, () => Promise<{ status: number; body: ClaudeAnswer }>, RegExp]>([
    [
      'no key',
      () => rawB(t.app, bashInput('npm i evil-pkg'), json),
      /^svc: command not checked: no API key was sent$/,
    ],
    [
      'a key that is not accepted',
      () =>
        rawB(t.app, bashInput('npm i evil-pkg'), {
          ...json,
          authorization: 'Bearer svc_wrongwrongwrongwrongwrongwrongwrong1',
        }),
      /^svc: command not checked: the API key was not accepted$/,
    ],
    [
      'a malformed body',
      () =>
        rawB(t.app, '{"tool_input": {"command": "npm i evil-pkg"', {
          ...json,
          authorization: `Bearer ${key}`,
        }),
      /^svc: command not checked: the hook input holds no shell command$/,
    ],
    [
      'a body over 1 MiB',
      () =>
        rawB(t.app, bashInput(`npm i evil-pkg ${'x'.repeat(1 << 20)}`), {
          ...json,
          authorization: `Bearer ${key}`,
        }),
      /^svc: command not checked: the hook input is larger than 1048576 bytes$/,
    ],
    [
      'a form-encoded body (the wrong content type)',
      () =>
        rawB(t.app, 'tool_name=Bash&command=npm+i+evil-pkg', {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Bearer ${key}`,
        }),
      /^svc: command not checked: the hook input holds no shell command$/,
    ],
    [
      'a registry that fails',
      () => rawB(t.app, bashInput('npm i broken'), { ...json, authorization: `Bearer ${key}` }),
      /^svc: checked `broken`: nothing risky found in what could be checked\n- `broken` was not fully checked: npm did not answer \(server error \(HTTP 500\)\)$/,
    ],
    [
      'a registry that hangs',
      () => rawB(t.app, bashInput('npm i flaky'), { ...json, authorization: `Bearer ${key}` }),
      /^svc: checked `flaky`: nothing risky found in what could be checked\n- `flaky` was not fully checked: npm did not answer \(out of time\); the malware database did not answer \(out of time\)$/,
    ],
  ])('%s', async (_, call, reason) => {
    const r = await call();
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ systemMessage: expect.stringMatching(reason) });
  });

  it('a JSON body sent as text/plain is still judged: the content type is not what decides', async () => {
    const r = await rawB(t.app, bashInput('npm i evil-pkg'), {
      'content-type': 'text/plain',
      authorization: `Bearer ${key}`,
    });
    expect(r.body.hookSpecificOutput?.permissionDecision).toBe('deny');
  });

  it('registries that cannot be reached at all', async () => {
    // No registries configured: every lookup goes to a closed port.
    const offline = await startTestApp();
    try {
      const k = await offline.userWithKey('offline@example.test');
      const r = await rawB(offline.app, bashInput('npm i lodash'), { ...json, authorization: `Bearer ${k}` });
      expect(r.body).toEqual({
        systemMessage: expect.stringMatching(
          /^svc: checked `lodash`: nothing risky found in what could be checked\n- `lodash` was not fully checked: npm did not answer \(.+\); the malware database did not answer \(.+\)$/,
        ),
      });
    } finally {
      await offline.cleanup();
    }
  });
});

describe('at most 10 packages a command, through the endpoint, for both agents', () => {
  // Eleven established names and a twelfth that is known malware: only the first ten are judged.
  const names = Array.from({ length: 11 }, (_, i) => `cap-pkg-${i + 1}`);
  const line = `npm i ${names.join(' ')} evil-pkg`;
  beforeAll(() => {
    for (const name of names) registries.addPackage('npm', name, { versions: { '1.0.0': OLD } });
  });
  const firstTen = names
    .slice(0, 10)
    .map((n) => `\`${n}\``)
    .join(', ');
  const expected = `svc: checked ${firstTen}: nothing risky found\n- 2 more packages: not checked: at most 10 packages are checked per command`;

  it('Cursor', async () => {
    const before = registries.requests.length;
    const r = await hookA(line);
    expect(r.body).toMatchObject({ permission: 'allow', user_message: expected, agent_message: expected });
    const asked = registries.requests.slice(before).map((q) => `${q.path} ${q.body}`);
    expect(asked.some((p) => p.includes('cap-pkg-11') || p.includes('evil-pkg'))).toBe(false);
  });

  it('Claude Code', async () => {
    const r = await hookB(line);
    expect(r.body).toEqual({ systemMessage: expected });
  });

  it('exactly 10 packages: all judged, nothing said about a cap', async () => {
    const r = await hookB(`npm i ${names.slice(0, 9).join(' ')} evil-pkg`);
    expect(r.body.hookSpecificOutput?.permissionDecision).toBe('deny');
    expect(r.body.hookSpecificOutput?.permissionDecisionReason).not.toMatch(/at most 10/);
  });
});

describe('what is stored', () => {
  it('for an install: the parsed packages, the decision and its reasons, never the command line', async () => {
    const marker = 'ghp_SvcMarkerNotStoredAnywhere0000000000';
    await hookA(`GH_TOKEN=${marker} npm i evil-pkg lodash && echo done`);
    const user = (await t.db.storage.accounts.findUserByEmail('agent@example.test'))!;
    const [latest] = await t.db.storage.hookDecisions.listHookDecisions(user.id, 1);
    expect(latest).toMatchObject({
      agent: 'a',
      mode: 'block',
      decision: 'deny',
      packages: [
        { ecosystem: 'npm', name: 'evil-pkg', version: null },
        { ecosystem: 'npm', name: 'lodash', version: null },
      ],
    });
    expect(latest!.reasons.join()).toMatch(/known malware/);
    const file = t.db.url.replace(/^sqlite:/, '');
    const stored = [file, `${file}-wal`].map((f) => {
      try {
        return readFileSync(f).toString('latin1');
      } catch {
        return '';
      }
    });
    expect(stored.join('')).not.toContain(marker);
    expect(t.logs.join('')).not.toContain(marker);
  });

  it('for a non-install: nothing', async () => {
    const user = (await t.db.storage.accounts.findUserByEmail('agent@example.test'))!;
    const before = (await t.db.storage.hookDecisions.listHookDecisions(user.id, 100)).length;
    await hookA('git push origin main');
    expect((await t.db.storage.hookDecisions.listHookDecisions(user.id, 100)).length).toBe(before);
  });
});
