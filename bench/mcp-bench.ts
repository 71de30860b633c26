/**
 * `npm run bench:mcp`: requests per second and p50/p99 latency of MCP tools/call against the real
 * service process on loopback: `check_command` for a line that installs nothing, at both protocol
 * revisions served (2026-07-28: one self-describing request; 2025-11-25: the tools/call a client sends
 * after initialize, answered by a fresh stateless server like every request), and `scan_secrets` on
 * a 100 KB document. Each answer is checked once before the measured runs. The machine's load is
 * printed with the figures: the machines are shared.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { fakePaymentKey } from '../test/helpers/fake-secrets.js';
import { startServiceProcess } from '../test/helpers/service-process.js';

const seconds = Number(process.env.SVC_BENCH_SECONDS ?? 10);
// Eight agents calling one instance at once (SVC_BENCH_CONNECTIONS=32 shows the queueing).
const connections = Number(process.env.SVC_BENCH_CONNECTIONS ?? 8);

const dir = mkdtempSync(join(tmpdir(), 'svc-mcp-bench-'));
const service = await startServiceProcess(
  { SVC_DATABASE_URL: `sqlite:${join(dir, 'svc.db')}`, SVC_RATE_LIMIT_API: '1000000000' },
  'free',
);
const url = `${service.base}/mcp`;
const baseHeaders = {
  authorization: `Bearer ${service.key}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};
const modernMeta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'svc-bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A tools/call as each revision's client sends it. */
function toolsCall(revision: '2026-07-28' | '2025-11-25', name: string, args: Record<string, unknown>) {
  const modern = revision === '2026-07-28';
  return {
    headers: {
      ...baseHeaders,
      'mcp-protocol-version': revision,
      ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: args, ...(modern ? { _meta: modernMeta } : {}) },
    }),
  };
}

// 100 KB of ordinary code with one secret near the end: the prefilter walks it all, the rules run on
// the lines holding a keyword.
const line = 'export const total = items.reduce((sum, item) => sum + item.price * item.quantity, 0);\n';
const document = `${line.repeat(Math.floor(100_000 / line.length))}const key = "${fakePaymentKey(9)}";\n`;

const cases = [
  {
    name: 'check_command, not an install (2026-07-28)',
    call: toolsCall('2026-07-28', 'check_command', { command: 'git status && ls -la' }),
    expect: '"decision":"allow"',
    target: 'p99 < 10 ms, >= 1,000 calls/s',
  },
  {
    name: 'check_command, not an install (2025-11-25)',
    call: toolsCall('2025-11-25', 'check_command', { command: 'git status && ls -la' }),
    expect: '"decision":"allow"',
    target: 'p99 < 10 ms, >= 1,000 calls/s',
  },
  {
    name: `scan_secrets, ${Math.round(document.length / 1000)} KB document (2026-07-28)`,
    call: toolsCall('2026-07-28', 'scan_secrets', {
      documents: [{ content: document, filename: 'src/a.ts' }],
    }),
    expect: '"ruleId":"payment-live-key"',
    target: '(no target)',
  },
];

const rows: string[] = [];
for (const { name, call, expect, target } of cases) {
  const answer = await (await fetch(url, { method: 'POST', headers: call.headers, body: call.body })).text();
  if (!answer.includes(expect)) throw new Error(`${name}: unexpected answer ${answer.slice(0, 300)}`);
  const options = { url, method: 'POST' as const, headers: call.headers, body: call.body, connections };
  await autocannon({ ...options, duration: 2 });
  const r = await autocannon({ ...options, duration: seconds });
  rows.push(
    `${name.padEnd(46)} ${Math.round(r.requests.average).toString().padStart(6)} calls/s  p50 ${String(r.latency.p50).padStart(3)} ms` +
      `  p99 ${String(r.latency.p99).padStart(3)} ms  errors ${r.errors + r.non2xx}   target: ${target}`,
  );
}
// The largest call there is: 20 documents of 1 MiB, every line holding a keyword (the rules run on
// each), one call at a time. Target: within 2 s.
const dense = 'const password = process.env.PASSWORD; // token secret key api\n';
const big = toolsCall('2026-07-28', 'scan_secrets', {
  documents: Array.from({ length: 20 }, (_, i) => ({
    content: dense.repeat(Math.floor((1024 * 1024) / dense.length)),
    filename: `src/f${i}.ts`,
  })),
});
const times: number[] = [];
for (let i = 0; i < 5; i++) {
  const started = performance.now();
  const r = await fetch(url, { method: 'POST', headers: big.headers, body: big.body });
  if (!(await r.text()).includes('"passed":true')) throw new Error('20 x 1 MiB: unexpected answer');
  times.push(performance.now() - started);
}
times.sort((a, b) => a - b);
rows.push(
  `${'scan_secrets, 20 x 1 MiB, keyword on every line'.padEnd(46)} 5 calls one at a time: median ${Math.round(times[2]!)} ms, ` +
    `slowest ${Math.round(times[4]!)} ms   target: within 2 s`,
);
await service.stop();
rmSync(dir, { recursive: true, force: true });
const load = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
console.log(
  `${connections} connections, ${seconds} s a run, loopback, ${execFileSync('nproc', { encoding: 'utf8' }).trim()} cores, load average ${load} (after the runs)`,
);
console.log(rows.join('\n'));
