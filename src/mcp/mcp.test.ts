import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, POSTGRES_URL, skipDialect } from '../../test/helpers/databases.js';
import { FakeRegistries } from '../../test/helpers/fake-registries.js';
import { fakeCloudKeyId, fakeCodehostToken, fakePaymentKey } from '../../test/helpers/fake-secrets.js';
import { GitHttpServer } from '../../test/helpers/git-http-server.js';
import { TestRepo } from '../../test/helpers/git-repo.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';

const OLD = new Date('2020-01-01T00:00:00Z');
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);

/** The two protocol revisions served: 2025-11-25 (initialize first) and the stateless 2026-07-28. */
const REVISIONS = [
  { name: '2025-11-25', mode: 'legacy' },
  { name: '2026-07-28', mode: { pin: '2026-07-28' } },
] as const;

type Revision = (typeof REVISIONS)[number];

/** A 2025-era client's first request, as sent on the wire. */
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

async function connect(url: string, key: string, revision: Revision): Promise<Client> {
  const client = new Client(
    { name: 'svc-test', version: '1.0.0' },
    { versionNegotiation: { mode: revision.mode } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

type ToolAnswer = {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
};

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolAnswer;

/** What the result's text block holds, checked to be the same JSON as its structured content. */
function structured(answer: ToolAnswer): Record<string, unknown> {
  expect(answer.isError ?? false).toBe(false);
  expect(JSON.parse(answer.content[0]!.text)).toEqual(answer.structuredContent);
  return answer.structuredContent!;
}

/** One line of a tool error, with no stack. */
function errorLine(answer: ToolAnswer): string {
  expect(answer.isError).toBe(true);
  const text = answer.content.map((c) => c.text).join('\n');
  expect(text).not.toContain('\n');
  expect(text).not.toMatch(/\bat .+:\d+:\d+/);
  return text;
}

/** Every byte the database holds, as text: the SQLite files, or every row of every table. */
async function databaseText(t: TestApp): Promise<string> {
  if (t.db.dialect === 'sqlite') {
    const dir = dirname(t.db.url.slice('sqlite:'.length));
    return readdirSync(dir)
      .map((f) => readFileSync(join(dir, f)).toString('latin1'))
      .join('\n');
  }
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      'select table_name from information_schema.tables where table_schema = $1',
      [t.db.schema],
    );
    // One query at a time: a pg client runs one, and pg 9 refuses a second while one is in flight.
    const text: string[] = [];
    for (const r of tables.rows) {
      const rows = await client.query(`select t::text as row from "${t.db.schema}"."${r.table_name}" t`);
      for (const row of rows.rows) text.push(String(row.row));
    }
    return text.join('\n');
  } finally {
    await client.end();
  }
}

let registries: FakeRegistries;
let git: GitHttpServer;
let repoUrl: string;
const REPO_SECRET = fakeCloudKeyId(61);
beforeAll(async () => {
  git = await GitHttpServer.start();
  const repo = new TestRepo();
  repo.commitFiles({ 'config/deploy.env': `AWS_ACCESS_KEY_ID=${REPO_SECRET}\n` }, 'deploy');
  repo.commitFiles({ 'test/fixtures/keys.txt': `${fakePaymentKey(62)}\n` }, 'fixture');
  repoUrl = git.publish(repo.dir, 'octo', 'mcp');
  repo.cleanup();
  registries = await FakeRegistries.start();
  registries
    .addPackage('npm', 'lodash', { versions: { '4.17.21': OLD } })
    .addPackage('npm', 'lodahs', { versions: { '1.0.0': OLD } })
    .addPackage('npm', 'left-pad-ng', { versions: { '1.0.0': daysAgo(2) } })
    .addPackage('PyPI', 'requests', { versions: { '2.31.0': OLD } });
});
afterAll(async () => {
  await registries.stop();
  await git.stop();
});

for (const dialect of DIALECTS) {
  describe.skipIf(await skipDialect(dialect, 'MCP tests'))(`POST /mcp on ${dialect}`, () => {
    let t: TestApp;
    let server: { url: string; close(): Promise<void> };
    let key: string;
    let teamKey: string;

    beforeAll(async () => {
      t = await startTestApp({
        dialect,
        registries: registries.urls,
        env: { SVC_SCAN_HOSTS: `github.com,${git.origin}` },
        // Both revisions' scan tests start scans from 127.0.0.1; the limit has a test of its own.
        rateLimits: { scanStart: 1000 },
      });
      key = await t.userWithKey('solo@example.test', 'free');
      teamKey = await t.userWithKey('member@example.test', 'paid', { name: 'warn-team', plan: 'paid' });
      await t.services.accounts.setTeamMode('warn-team', 'warn');
      server = await t.listen();
    });
    afterAll(async () => {
      await server.close();
      await t.cleanup();
    });

    describe('authentication', () => {
      const post = (headers: Record<string, string>) =>
        fetch(`${server.url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });

      it.each([
        ['no key', {}, 'missing API key'],
        ['a key that does not exist', { authorization: `Bearer svc_${'x'.repeat(40)}` }, 'invalid API key'],
        [
          'another scheme',
          { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
          'missing API key',
        ],
      ])('%s: 401 with WWW-Authenticate: Bearer and the JSON error', async (_, headers, error) => {
        const r = await post(headers);
        expect(r.status).toBe(401);
        expect(r.headers.get('www-authenticate')).toBe('Bearer');
        expect(await r.json()).toEqual({ error });
      });

      it('a revoked key stops working on the next request', async () => {
        const revocable = await t.userWithKey('revoked@example.test');
        const client = await connect(server.url, revocable, REVISIONS[0]);
        expect((await client.listTools()).tools).toHaveLength(7);
        await t.services.accounts.revokeKeys(revocable.slice(0, 12));
        await expect(client.listTools()).rejects.toThrow(/401|invalid API key/);
        const r = await post({ authorization: `Bearer ${revocable}` });
        expect(r.status).toBe(401);
        expect(await r.json()).toEqual({ error: 'invalid API key' });
        await client.close();
      });
    });

    it('GET and DELETE answer 405 (stateless: no stream, no session)', async () => {
      for (const method of ['GET', 'DELETE']) {
        const r = await fetch(`${server.url}/mcp`, { method, headers: { authorization: `Bearer ${key}` } });
        expect(r.status).toBe(405);
        expect(r.headers.get('allow')).toBe('POST');
        expect(r.headers.get('mcp-session-id')).toBeNull();
      }
    });

    for (const revision of REVISIONS) {
      describe(`the SDK's Client at ${revision.name}`, () => {
        let client: Client;
        let member: Client;
        beforeAll(async () => {
          client = await connect(server.url, key, revision);
          member = await connect(server.url, teamKey, revision);
        });
        afterAll(async () => {
          await client.close();
          await member.close();
        });

        it('negotiates the revision and lists the seven tools, read-only but the one that starts a scan, with input and output schemas', async () => {
          expect(client.getNegotiatedProtocolVersion()).toBe(revision.name);
          const { tools } = await client.listTools();
          expect(tools.map((tool) => tool.name).sort()).toEqual([
            'check_command',
            'check_packages',
            'get_scan',
            'hook_config',
            'list_scans',
            'scan_repository',
            'scan_secrets',
          ]);
          for (const tool of tools) {
            expect(tool.annotations?.readOnlyHint).toBe(tool.name !== 'scan_repository');
            expect(tool.description?.length).toBeGreaterThan(80);
            expect(tool.inputSchema.type).toBe('object');
            expect(tool.outputSchema?.type).toBe('object');
          }
        });

        it('scan_secrets: masked findings, located by filename; only code fails', async () => {
          const cloud = fakeCloudKeyId(11);
          const token = fakeCodehostToken(12);
          const answer = structured(
            await call(client, 'scan_secrets', {
              documents: [
                { content: `first line\r\nconst id = "${cloud}";\r\n`, filename: 'src/aws.ts' },
                { content: `# setup\n\n    token: ${token}\n`, filename: 'docs/setup.md' },
                { content: 'nothing to see here\n' },
              ],
            }),
          );
          expect(answer).toEqual({
            findings: [
              {
                ruleId: 'cloud-access-key-id',
                document: 0,
                filename: 'src/aws.ts',
                line: 2,
                location: 'code',
                maskedValue: `${cloud.slice(0, 4)}${'*'.repeat(16)}`,
              },
              {
                ruleId: 'codehost-token',
                document: 1,
                filename: 'docs/setup.md',
                line: 3,
                location: 'docs',
                maskedValue: `${token.slice(0, 4)}${'*'.repeat(16)}`,
              },
            ],
            passed: false,
            total: 2,
            truncated: false,
          });
          const docsOnly = structured(
            await call(client, 'scan_secrets', {
              documents: [{ content: `token: ${token}`, filename: 'test\\fixtures\\token.txt' }],
            }),
          );
          expect(docsOnly).toMatchObject({ findings: [{ location: 'test' }], passed: true });
          const unnamed = structured(await call(client, 'scan_secrets', { documents: [{ content: token }] }));
          expect(unnamed).toMatchObject({ findings: [{ filename: null, location: 'code' }], passed: false });
        });

        it('check_command: a line that installs nothing is allowed and not recorded', async () => {
          const answer = structured(await call(client, 'check_command', { command: 'git status && ls -la' }));
          expect(answer).toEqual({
            decision: 'allow',
            installs: [],
            skipped: [],
            message: 'svc: not a package install',
            mode: 'block',
          });
        });

        it('check_command: a risky install is denied in block mode, asked about in warn mode', async () => {
          const denied = structured(await call(client, 'check_command', { command: 'npm install lodahs' }));
          expect(denied).toMatchObject({
            decision: 'deny',
            mode: 'block',
            installs: [{ ecosystem: 'npm', name: 'lodahs', version: null, risky: true }],
          });
          expect((denied.installs as { reasons: string[] }[])[0]!.reasons.join(' ')).toMatch(/lodash/);
          const asked = structured(
            await call(client, 'check_command', { command: 'npm install lodahs', mode: 'warn' }),
          );
          expect(asked).toMatchObject({ decision: 'ask', mode: 'warn' });
        });

        it('check_command: a member of a team in warn mode gets ask, even asking for block', async () => {
          for (const args of [{}, { mode: 'block' }]) {
            const answer = structured(
              await call(member, 'check_command', { command: 'npm i left-pad-ng lodash', ...args }),
            );
            expect(answer).toMatchObject({ decision: 'ask', mode: 'warn' });
            expect(answer.installs).toMatchObject([
              { name: 'left-pad-ng', risky: true },
              { name: 'lodash', risky: false, reasons: [] },
            ]);
          }
          // A question asked over MCP is not a command that ran: the hook history stays empty.
          const user = (await t.db.storage.accounts.findUserByEmail('member@example.test'))!;
          expect(await t.db.storage.hookDecisions.listHookDecisions(user.id, 10)).toEqual([]);
        });

        it('check_packages: each package judged with its reasons', async () => {
          const answer = structured(
            await call(client, 'check_packages', {
              packages: [
                { ecosystem: 'npm', name: 'lodash', version: '4.17.21' },
                { ecosystem: 'npm', name: 'lodahs' },
                { ecosystem: 'npm', name: 'left-pad-ng' },
                { ecosystem: 'PyPI', name: 'requests', version: '2.31.0' },
                { ecosystem: 'npm', name: 'no-such-package-anywhere' },
              ],
            }),
          );
          const packages = answer.packages as { name: string; risky: boolean; reasons: string[] }[];
          expect(packages.map((p) => [p.name, p.risky])).toEqual([
            ['lodash', false],
            ['lodahs', true],
            ['left-pad-ng', true],
            ['requests', false],
            ['no-such-package-anywhere', true],
          ]);
          expect(packages[0]).toEqual({
            ecosystem: 'npm',
            name: 'lodash',
            version: '4.17.21',
            risky: false,
            reasons: [],
            unjudged: null,
          });
          expect(packages[2]!.reasons.join(' ')).toMatch(/first published 2 days ago/);
          expect(packages[4]!.reasons.join(' ')).toMatch(/does not exist on/);
        });

        it("scan_repository, then get_scan until done: the history's findings, masked; list_scans has it", async () => {
          const started = structured(await call(client, 'scan_repository', { url: repoUrl }));
          expect(started).toEqual({ scanId: expect.any(String), status: 'queued' });
          const scanId = started.scanId as string;
          const worker = await t.services.startScanWorker({ pollMs: 20 });
          let scan: Record<string, unknown>;
          try {
            for (;;) {
              scan = structured(await call(client, 'get_scan', { scanId }));
              if (scan.status !== 'queued' && scan.status !== 'running') break;
              await new Promise((r) => setTimeout(r, 50));
            }
          } finally {
            await worker.stop();
          }
          expect(scan).toMatchObject({ id: scanId, url: repoUrl, status: 'done', error: null });
          expect(scan.summary).toMatchObject({ total: 2, failing: 1 });
          const findings = scan.findings as { path: string; maskedValue: string; verification: string }[];
          expect(findings.map((f) => [f.path, f.maskedValue, f.verification]).sort()).toEqual([
            ['config/deploy.env', `AKIA${'*'.repeat(16)}`, 'unchecked'],
            ['test/fixtures/keys.txt', expect.stringMatching(/^sk_l\*+$/), 'unchecked'],
          ]);
          expect(JSON.stringify(scan)).not.toContain(REPO_SECRET);
          const { scans } = structured(await call(client, 'list_scans', { limit: 50 })) as {
            scans: Record<string, unknown>[];
          };
          expect(scans.find((s) => s.id === scanId)).toMatchObject({ status: 'done', url: repoUrl });
          expect(scans.every((s) => !('findings' in s))).toBe(true);
          expect((structured(await call(client, 'list_scans', { limit: 1 })).scans as unknown[]).length).toBe(
            1,
          );
          // Another user (not in the caller's team) cannot read it.
          expect(errorLine(await call(member, 'get_scan', { scanId }))).toBe('get_scan: scan not found');
        });

        it('scan_repository: a URL it may not scan is a tool error with the reason, queuing nothing', async () => {
          const before = (structured(await call(client, 'list_scans', { limit: 50 })).scans as unknown[])
            .length;
          for (const [url, reason] of [
            ['ssh://git@github.com/octo/app.git', /only https/],
            ['https://user:pw@github.com/octo/app', /credentials/],
            ['https://bitbucket.org/octo/app', /host is not allowed/],
          ] as const) {
            expect(errorLine(await call(client, 'scan_repository', { url }))).toMatch(reason);
          }
          expect(
            (structured(await call(client, 'list_scans', { limit: 50 })).scans as unknown[]).length,
          ).toBe(before);
          expect(errorLine(await call(client, 'get_scan', { scanId: 'no-such-scan' }))).toBe(
            'get_scan: scan not found',
          );
        });

        it('hook_config: the configuration with the key placeholder and the base URL, never a key', async () => {
          for (const agent of ['a', 'b'] as const) {
            const answer = structured(await call(client, 'hook_config', { agent }));
            expect(answer).toMatchObject({ agent, keyPlaceholder: '<SVC_API_KEY>' });
            const text = JSON.stringify(answer.config);
            expect(text).toContain("'Authorization: Bearer <SVC_API_KEY>'");
            expect(text).toContain(`http://localhost:3000/api/hooks/agent-${agent}`);
            expect(text).not.toContain('svc_');
          }
          const windows = structured(await call(client, 'hook_config', { agent: 'b', windows: true }));
          expect(JSON.stringify(windows.config)).toContain('curl.exe');
        });

        it.each([
          ['wrong types', 'scan_secrets', { documents: 'not a list' }, /documents/],
          ['no documents', 'scan_secrets', { documents: [] }, /at least one document/],
          [
            '21 documents',
            'scan_secrets',
            { documents: Array.from({ length: 21 }, () => ({ content: 'x' })) },
            /at most 20 documents/,
          ],
          [
            'a 2 MiB document',
            'scan_secrets',
            { documents: [{ content: 'a'.repeat(2 * 1024 * 1024) }] },
            /over 1 MiB/,
          ],
          [
            'a document of 1 Mi characters, 2 MiB in UTF-8',
            'scan_secrets',
            { documents: [{ content: 'é'.repeat(1024 * 1024) }] },
            /document 0 is 2097152 bytes; at most 1 MiB/,
          ],
          [
            '11 packages',
            'check_packages',
            { packages: Array.from({ length: 11 }, (_, i) => ({ ecosystem: 'npm', name: `p${i}` })) },
            /at most 10 packages/,
          ],
          [
            'an unknown ecosystem',
            'check_packages',
            { packages: [{ ecosystem: 'rubygems', name: 'rails' }] },
            /ecosystem/,
          ],
          [
            'a name that is not a name',
            'check_packages',
            { packages: [{ ecosystem: 'npm', name: ' ' }] },
            /not a package name/,
          ],
          ['an unknown agent', 'hook_config', { agent: 'c' }, /agent/],
          ['a missing command', 'check_command', {}, /command/],
        ])('%s: an isError result with one clear line', async (_, tool, args, reason) => {
          expect(errorLine(await call(client, tool, args))).toMatch(reason);
        });

        it('an unknown tool is a protocol error', async () => {
          await expect(
            call(client, 'delete_repository', { url: 'https://example.test/a/b' }),
          ).rejects.toThrow(/Tool delete_repository not found/);
        });

        it('20 documents of 1 MiB are scanned, and the service goes on answering', async () => {
          const secret = fakePaymentKey(21);
          const filler = `${'const value = compute(input) + 1; // nothing secret on this line\n'.repeat(16_000)}`;
          const doc = (i: number) => ({
            content: `${filler}const key = "${secret}";\n`.slice(-(1024 * 1024)),
            filename: `src/file${i}.ts`,
          });
          const answer = structured(
            await call(client, 'scan_secrets', { documents: Array.from({ length: 20 }, (_, i) => doc(i)) }),
          );
          const findings = answer.findings as { document: number; ruleId: string }[];
          expect(findings.map((f) => f.document)).toEqual(Array.from({ length: 20 }, (_, i) => i));
          expect(new Set(findings.map((f) => f.ruleId))).toEqual(new Set(['payment-live-key']));
          expect(answer.passed).toBe(false);
          expect(structured(await call(client, 'check_command', { command: 'ls' })).decision).toBe('allow');
        });
      });
    }

    it('a body that is not JSON-RPC gets the protocol error, and the process goes on', async () => {
      const post = (body: string) =>
        fetch(`${server.url}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body,
        });
      const notJson = await post('this is not json');
      expect(notJson.status).toBe(400);
      expect(await notJson.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
      for (const body of ['{"hello": "world"}', '[1, 2]', '"text"', 'null']) {
        const r = await post(body);
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
        expect(await r.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
      }
      const client = await connect(server.url, key, REVISIONS[1]);
      expect((await client.listTools()).tools).toHaveLength(7);
      await client.close();
    });

    it('refuses a JSON-RPC batch with -32600 (id null), before any call in it runs', async () => {
      const before = (await t.services.scans.list(await t.services.principals.authenticate(`Bearer ${key}`)))
        .length;
      const batch = Array.from({ length: 100 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'tools/call',
        params: { name: 'scan_repository', arguments: { url: repoUrl } },
      }));
      for (const extra of [{}, { 'mcp-protocol-version': '2025-11-25' }] as Record<string, string>[]) {
        for (const body of [batch, [INITIALIZE, ...batch.slice(0, 2)]]) {
          const r = await fetch(`${server.url}/mcp`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...extra,
            },
            body: JSON.stringify(body),
          });
          expect(r.status).toBe(400);
          expect(await r.json()).toEqual({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) },
          });
        }
      }
      const principal = await t.services.principals.authenticate(`Bearer ${key}`);
      expect((await t.services.scans.list(principal)).length).toBe(before);
    });

    it('answers in one JSON body at both revisions, and never issues a session', async () => {
      const headers = {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      };
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      };
      const requests = [
        {
          headers,
          body: INITIALIZE,
        },
        {
          headers: {
            ...headers,
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 'check_command',
          },
          body: {
            jsonrpc: '2.0',
            id: 2,
            method: 'tools/call',
            params: { name: 'check_command', arguments: { command: 'ls' }, _meta: meta },
          },
        },
      ];
      for (const { headers: h, body } of requests) {
        const r = await fetch(`${server.url}/mcp`, {
          method: 'POST',
          headers: h,
          body: JSON.stringify(body),
        });
        expect(r.status).toBe(200);
        expect(r.headers.get('content-type')).toMatch(/^application\/json/);
        expect(r.headers.get('mcp-session-id')).toBeNull();
        expect(await r.json()).toMatchObject({ jsonrpc: '2.0', id: body.id, result: expect.any(Object) });
      }
    });

    it('a body over 32 MiB is refused with 413 before it is read whole', async () => {
      const r = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: 'x'.repeat(33 * 1024 * 1024),
      });
      expect(r.status).toBe(413);
      expect(await r.json()).toEqual({ error: 'request body over 32 MiB' });
    });

    it('a secret in a document reaches no result, no log line and no database row', async () => {
      const secrets = [fakePaymentKey(31), fakeCodehostToken(32), fakeCloudKeyId(33)];
      for (const revision of REVISIONS) {
        const client = await connect(server.url, key, revision);
        const answers = [
          await call(client, 'scan_secrets', {
            documents: secrets.map((s, i) => ({ content: `secret = "${s}"`, filename: `src/s${i}.ts` })),
          }),
          // Refused input is not echoed back either.
          await call(client, 'scan_secrets', {
            documents: secrets.map((s) => ({ content: s, filename: 42 })),
          }),
          await call(client, 'check_command', { command: `curl -H "Authorization: ${secrets[1]}" x` }),
        ];
        await client.close();
        const text = JSON.stringify(answers);
        for (const s of secrets) expect(text).not.toContain(s);
      }
      const logs = t.logs.join('');
      const stored = await databaseText(t);
      for (const s of secrets) {
        expect(logs).not.toContain(s);
        expect(stored).not.toContain(s);
        expect(stored).not.toContain(s.slice(4));
      }
    });
  });
}

describe('rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ rateLimits: { api: 5 } });
  });
  afterAll(() => t.cleanup());

  it('MCP requests count in the per-IP api scope, with the API', async () => {
    const key = await t.userWithKey('limited@example.test');
    const mcp = (ip: string) =>
      t.request('/mcp', {
        key,
        ip,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(INITIALIZE),
      });
    for (let i = 0; i < 4; i++) expect((await mcp('192.0.2.7')).status).toBe(200);
    expect((await t.request('/api/account', { key, ip: '192.0.2.7' })).status).toBe(200);
    const limited = await mcp('192.0.2.7');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited.json()).toMatchObject({ error: expect.stringMatching(/rate limit exceeded/) });
    expect((await mcp('192.0.2.8')).status).toBe(200);
  });

  it('scan_repository counts against the 5 scan starts a minute per IP, like the dashboard', async () => {
    const limited = await startTestApp({ env: { SVC_SCAN_HOSTS: `github.com,${git.origin}` } });
    const server = await limited.listen();
    const client = await connect(server.url, await limited.userWithKey('scans@example.test'), REVISIONS[1]);
    try {
      for (let i = 0; i < 5; i++) structured(await call(client, 'scan_repository', { url: repoUrl }));
      expect(errorLine(await call(client, 'scan_repository', { url: repoUrl }))).toMatch(
        /^scan_repository: rate limit exceeded: 5 scan starts a minute; retry in \d+ s$/,
      );
    } finally {
      await client.close();
      await server.close();
      await limited.cleanup();
    }
  });
});
