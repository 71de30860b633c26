import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRegistries } from '../../test/helpers/fake-registries.js';
import { fakeCloudKeyId, fakePaymentKey } from '../../test/helpers/fake-secrets.js';
import { GitHttpServer } from '../../test/helpers/git-http-server.js';
import { TestRepo } from '../../test/helpers/git-repo.js';
import { startTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { directToolCall, type McpHeaders } from './direct-call.js';
import { mcpRoute } from './endpoint.js';

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'diff', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const ACCEPT = 'application/json, text/event-stream';

interface Case {
  name: string;
  headers: Record<string, string>;
  body: unknown;
  /** Whether the direct path answers it (else the SDK does, on both routes). */
  direct: boolean;
}

/** A tools/call as each revision's client sends it. */
function call(revision: 'modern' | 'legacy', tool: string, args: unknown, id: number | string = 7): Case {
  const modern = revision === 'modern';
  return {
    name: `${revision} ${tool} ${JSON.stringify(args).slice(0, 60)}`,
    headers: {
      accept: ACCEPT,
      'content-type': 'application/json',
      'mcp-protocol-version': modern ? '2026-07-28' : '2025-11-25',
      ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': tool } : {}),
    },
    body: {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: tool, arguments: args, ...(modern ? { _meta: MODERN_META } : {}) },
    },
    direct: true,
  };
}

const viaSdk = (c: Case, name = c.name): Case => ({ ...c, name, direct: false });
const withHeaders = (c: Case, headers: Record<string, string | undefined>, name: string): Case => {
  const merged = { ...c.headers, ...headers };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  return viaSdk({ ...c, headers: merged as Record<string, string> }, name);
};

describe('tools/call answered directly and by the SDK', () => {
  let t: TestApp;
  let key: string;
  let registries: FakeRegistries;
  let git: GitHttpServer;
  let repoUrl: string;

  beforeAll(async () => {
    registries = await FakeRegistries.start();
    registries
      .addPackage('npm', 'lodash', { versions: { '4.17.21': new Date('2020-01-01T00:00:00Z') } })
      .addPackage('npm', 'lodahs', { versions: { '1.0.0': new Date('2020-01-01T00:00:00Z') } });
    git = await GitHttpServer.start();
    const repo = new TestRepo();
    repo.commitFiles({ 'a.env': `AWS_ACCESS_KEY_ID=${fakeCloudKeyId(3)}\n` }, 'one');
    repoUrl = git.publish(repo.dir, 'octo', 'diff');
    repo.cleanup();
    t = await startTestApp({
      registries: registries.urls,
      env: { SVC_SCAN_HOSTS: `github.com,${git.origin}` },
      rateLimits: { scanStart: 1000 },
    });
    key = await t.userWithKey('diff@example.test', 'free');
  });
  afterAll(async () => {
    await t.cleanup();
    await registries.stop();
    await git.stop();
  });

  const secretDoc = { documents: [{ content: `key = "${fakePaymentKey(4)}"\n`, filename: 'src/a.ts' }] };
  const cases = (): Case[] => {
    const cases: Case[] = [];
    for (const revision of ['modern', 'legacy'] as const) {
      cases.push(
        call(revision, 'check_command', { command: 'git status && ls -la' }),
        call(revision, 'check_command', { command: 'npm install lodahs lodash', mode: 'warn' }, 'str-id'),
        call(revision, 'check_packages', { packages: [{ ecosystem: 'npm', name: 'lodash' }] }),
        call(revision, 'scan_secrets', secretDoc),
        call(revision, 'hook_config', { agent: 'b', windows: true }),
        call(revision, 'list_scans', {}),
        call(revision, 'get_scan', { scanId: 'no-such-scan' }),
        call(revision, 'scan_repository', { url: 'https://example.invalid/a/b' }),
        call(revision, 'scan_repository', { url: repoUrl }),
        viaSdk(call(revision, 'check_command', { command: '' }), `${revision} arguments the schema refuses`),
        viaSdk(call(revision, 'check_command', []), `${revision} arguments that are a list`),
        viaSdk(call(revision, 'no_such_tool', {}), `${revision} an unknown tool`),
        withHeaders(
          call(revision, 'hook_config', { agent: 'a' }),
          { accept: 'application/json' },
          `${revision} no event-stream in Accept`,
        ),
        withHeaders(
          call(revision, 'hook_config', { agent: 'a' }),
          { 'content-type': 'text/plain' },
          `${revision} not JSON content`,
        ),
        viaSdk(
          {
            ...call(revision, 'hook_config', { agent: 'a' }),
            body: [call(revision, 'hook_config', { agent: 'a' }).body],
          },
          `${revision} a batch`,
        ),
      );
    }
    const modern = call('modern', 'hook_config', { agent: 'a' });
    const legacy = call('legacy', 'hook_config', { agent: 'a' });
    cases.push(
      viaSdk(
        { ...legacy, body: { jsonrpc: '2.0', id: 9, method: 'tools/call' } },
        'legacy tools/call without params',
      ),
      withHeaders(modern, { 'mcp-name': 'check_command' }, 'modern Mcp-Name disagreeing with the body'),
      withHeaders(modern, { 'mcp-method': undefined }, 'modern without Mcp-Method'),
      viaSdk(
        {
          ...modern,
          body: { ...(modern.body as object), params: { name: 'hook_config', arguments: { agent: 'a' } } },
        },
        'modern without _meta',
      ),
      {
        ...withHeaders(legacy, { 'mcp-protocol-version': undefined }, 'legacy without a version header'),
        direct: true,
      },
      {
        ...withHeaders(legacy, { 'mcp-protocol-version': '2024-11-05' }, 'legacy at 2024-11-05'),
        direct: true,
      },
      withHeaders(legacy, { 'mcp-protocol-version': '1999-01-01' }, 'legacy at an unknown version'),
    );
    return cases;
  };

  it('answer alike, status, type and body, for every tool at both revisions and every request the SDK refuses', async () => {
    const direct = mcpRoute({ ...t.services, directToolCalls: true });
    const sdk = mcpRoute({ ...t.services, directToolCalls: false });
    const principal = await t.services.principals.authenticate(`Bearer ${key}`);
    const ctx = {
      principal,
      hookChecks: t.services.hookChecks,
      scans: t.services.scans,
      baseUrl: t.config.baseUrl,
      logger: t.services.logger,
      allowScanStart: async () => {},
    };
    const answer = async (route: typeof direct, c: Case) => {
      const res = await route.request('/', {
        method: 'POST',
        headers: { ...c.headers, authorization: `Bearer ${key}` },
        body: JSON.stringify(c.body),
      });
      const text = await res.text();
      // A started scan has a new id each time; everything else must be the same.
      const body = text === '' ? null : JSON.parse(text.replace(/(\\?"scanId\\?":\\?")[^"\\]+/g, '$1X'));
      return { status: res.status, type: res.headers.get('content-type'), body };
    };
    const all = cases();
    expect(all.filter((c) => c.direct).length).toBeGreaterThanOrEqual(20);
    for (const c of all) {
      const headers: McpHeaders = {
        accept: c.headers.accept,
        contentType: c.headers['content-type'],
        protocolVersion: c.headers['mcp-protocol-version'],
        mcpMethod: c.headers['mcp-method'],
        mcpName: c.headers['mcp-name'],
      };
      // Which path answers it.
      expect((await directToolCall(c.body, headers, ctx)) !== null, c.name).toBe(c.direct);
      const [one, two] = [await answer(direct, c), await answer(sdk, c)];
      expect(one, c.name).toEqual(two);
      expect(one.body, c.name).not.toBeNull();
    }
  });
});
