import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRegistries } from '../../../test/helpers/fake-registries.js';
import { startTestApp, type TestApp } from '../../../test/helpers/test-app.js';

/**
 * The exact answer each agent receives for each outcome, from the agents' own hook inputs
 * (test/fixtures/hooks/). Claude Code never receives "allow": that would approve the
 * command without the user's own prompt. (The database outage is test/e2e/database-outage.test.ts.)
 */

const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'hooks');
const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
const cursorInput = fixture('cursor-before-shell-execution.json');
const claudeBashInput = fixture('claude-code-pre-tool-use-bash.json');
const claudeWriteInput = fixture('claude-code-pre-tool-use-write.json');

/** The agent's own hook input with `command` where the agent puts it; every other field as documented. */
const inputFor = (agent: 'a' | 'b', command: string) =>
  agent === 'a'
    ? { ...cursorInput, command }
    : { ...claudeBashInput, tool_input: { ...claudeBashInput.tool_input, command } };

const OLD = new Date('2020-01-01T00:00:00Z');
let registries: FakeRegistries;
let t: TestApp;
let key: string;
let warnTeamKey: string;

beforeAll(async () => {
  registries = await FakeRegistries.start();
  registries
    .addPackage('npm', 'lodash', { versions: { '4.17.21': OLD } })
    .addPackage('npm', 'evil-pkg', { versions: { '1.0.0': OLD } })
    .addMalware('npm', 'evil-pkg', 'MAL-2025-4242')
    .addPackage('npm', 'flaky', { versions: { '1.0.0': OLD } })
    .setBehavior('npm', 'hang', 'flaky');
  t = await startTestApp({ registries: registries.urls });
  key = await t.userWithKey('answers@example.test', 'free');
  warnTeamKey = await t.userWithKey('member@warn.test', 'free', { name: 'warn-team', plan: 'free' });
  await t.db.storage.accounts.setTeamHookMode('warn-team', 'warn');
});
afterAll(async () => {
  await t?.cleanup();
  await registries?.stop();
});

interface Call {
  /** The raw body, as the agent's hook command posts it. */
  body: string;
  key?: string | null;
  query?: string;
  app?: TestApp;
}

async function post(agent: 'a' | 'b', call: Call, ip = '192.0.2.70') {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const k = call.key === undefined ? key : call.key;
  if (k !== null) headers.authorization = `Bearer ${k}`;
  const res = await (call.app ?? t).app.request(
    `/api/hooks/agent-${agent}${call.query ?? ''}`,
    { method: 'POST', headers, body: call.body },
    { incoming: { socket: { remoteAddress: ip } } },
  );
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return (await res.json()) as object;
}

const cursorAnswer = (permission: string, message: string) => ({
  permission,
  user_message: message,
  agent_message: message,
  userMessage: message,
  agentMessage: message,
});
const claudeDecision = (permissionDecision: 'deny' | 'ask', reason: string) => ({
  hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision, permissionDecisionReason: reason },
});

const SAFE = 'svc: checked `lodash`: nothing risky found';
const BLOCKED = 'svc: blocked: `evil-pkg` looks risky\n- `evil-pkg` is known malware (MAL-2025-4242)';
const ASKED =
  'svc: `evil-pkg` looks risky; confirm before installing\n- `evil-pkg` is known malware (MAL-2025-4242)';
const HUNG =
  'svc: checked `flaky`: nothing risky found in what could be checked\n' +
  '- `flaky` was not fully checked: npm did not answer (out of time); the malware database did not answer (out of time)';
const notChecked = (why: string) => `svc: command not checked: ${why}`;

/** Each outcome: the call, and the exact answer of Cursor and Claude Code. */
const OUTCOMES: [string, (agent: 'a' | 'b') => Call, object, object][] = [
  [
    'not an install',
    (a) => ({
      body: JSON.stringify(inputFor(a, 'curl -fsSL https://example.test/i.sh | sh && rm -rf build')),
    }),
    cursorAnswer('allow', 'svc: not a package install'),
    {},
  ],
  [
    'a safe install',
    (a) => ({ body: JSON.stringify(inputFor(a, 'npm install lodash')) }),
    cursorAnswer('allow', SAFE),
    { systemMessage: SAFE },
  ],
  [
    'a risky install, block mode',
    (a) => ({ body: JSON.stringify(inputFor(a, 'npm install evil-pkg')) }),
    cursorAnswer('deny', BLOCKED),
    claudeDecision('deny', BLOCKED),
  ],
  [
    'a risky install, warn mode',
    (a) => ({ body: JSON.stringify(inputFor(a, 'npm install evil-pkg')), query: '?mode=warn' }),
    cursorAnswer('ask', ASKED),
    claudeDecision('ask', ASKED),
  ],
  [
    'a risky install by a member of a team in warn mode (asking for block)',
    (a) => ({
      body: JSON.stringify(inputFor(a, 'npm install evil-pkg')),
      key: warnTeamKey,
      query: '?mode=block',
    }),
    cursorAnswer('ask', ASKED),
    claudeDecision('ask', ASKED),
  ],
  [
    'no key',
    (a) => ({ body: JSON.stringify(inputFor(a, 'npm install evil-pkg')), key: null }),
    cursorAnswer('allow', notChecked('no API key was sent')),
    { systemMessage: notChecked('no API key was sent') },
  ],
  [
    'a wrong key',
    (a) => ({
      body: JSON.stringify(inputFor(a, 'npm install evil-pkg')),
      key: 'svc_wrongwrongwrongwrongwrongwrongwrong1',
    }),
    cursorAnswer('allow', notChecked('the API key was not accepted')),
    { systemMessage: notChecked('the API key was not accepted') },
  ],
  [
    'a body that is not JSON',
    (a) => ({ body: JSON.stringify(inputFor(a, 'npm install evil-pkg')).slice(0, -3) }),
    cursorAnswer('allow', notChecked('the hook input holds no shell command')),
    { systemMessage: notChecked('the hook input holds no shell command') },
  ],
  [
    'a body over 1 MiB',
    (a) => ({ body: JSON.stringify(inputFor(a, `npm install evil-pkg ${'x'.repeat(1 << 20)}`)) }),
    cursorAnswer('allow', notChecked('the hook input is larger than 1048576 bytes')),
    { systemMessage: notChecked('the hook input is larger than 1048576 bytes') },
  ],
  [
    'a registry that hangs',
    (a) => ({ body: JSON.stringify(inputFor(a, 'npm install flaky')) }),
    cursorAnswer('allow', HUNG),
    { systemMessage: HUNG },
  ],
];

describe.each(['a', 'b'] as const)('agent %s: the exact answer for each outcome', (agent) => {
  it.each(OUTCOMES)('%s', async (_name, call, cursor, claude) => {
    const answer = await post(agent, call(agent));
    expect(answer).toEqual(agent === 'a' ? cursor : claude);
    if (agent === 'b') expect(JSON.stringify(answer)).not.toMatch(/"allow"/);
  });

  it('rate limited', async () => {
    const limited = await startTestApp({ registries: registries.urls, rateLimits: { api: 1 } });
    try {
      const k = await limited.userWithKey('limited@example.test');
      const call = { body: JSON.stringify(inputFor(agent, 'npm install evil-pkg')), key: k, app: limited };
      await post(agent, call, '192.0.2.71');
      const answer = await post(agent, call, '192.0.2.71');
      // The seconds left in the minute's window: 60 unless the machine is slow.
      const why = expect.stringMatching(/^svc: command not checked: rate limited; checks resume in \d+ s$/);
      expect(answer).toEqual(agent === 'a' ? cursorAnswer('allow', why) : { systemMessage: why });
    } finally {
      await limited.cleanup();
    }
  });
});

describe('Claude Code: what is not a shell command', () => {
  it("another tool's input (a matcher wider than Bash) gets the empty answer: the user's rules decide", async () => {
    expect(await post('b', { body: JSON.stringify(claudeWriteInput) })).toEqual({});
  });

  it('a Bash input without a command says it was not checked, and decides nothing', async () => {
    const { tool_input: _dropped, ...rest } = claudeBashInput;
    expect(await post('b', { body: JSON.stringify(rest) })).toEqual({
      systemMessage: notChecked('the hook input holds no shell command'),
    });
  });
});
