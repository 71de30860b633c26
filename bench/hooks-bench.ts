/**
 * `npm run bench:hooks`: p50/p99 latency and requests per second of the Cursor hook endpoint, side
 * by side, for a command that is not an install and for an install whose packages are cached. The
 * service runs as its own process against fake registries on loopback (the first install request
 * fills the cache; the measured ones are answered from it).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { FakeRegistries } from '../test/helpers/fake-registries.js';
import { startServiceProcess } from '../test/helpers/service-process.js';

const seconds = Number(process.env.SVC_BENCH_SECONDS ?? 10);
// Eight agents calling one instance at once; more connections only add queueing to the latency
// (SVC_BENCH_CONNECTIONS=32 shows it).
const connections = Number(process.env.SVC_BENCH_CONNECTIONS ?? 8);

const registries = await FakeRegistries.start();
const old = new Date('2020-01-01T00:00:00Z');
registries
  .addPackage('npm', 'react', { versions: { '18.3.1': old } })
  .addPackage('npm', 'lodash', { versions: { '4.17.21': old } })
  .addPackage('PyPI', 'requests', { versions: { '2.31.0': old } });

const dir = mkdtempSync(join(tmpdir(), 'svc-hooks-bench-'));
const service = await startServiceProcess(
  { ...registries.env, SVC_DATABASE_URL: `sqlite:${join(dir, 'svc.db')}`, SVC_RATE_LIMIT_API: '1000000000' },
  'free',
);
const key = service.key;
const url = `${service.base}/api/hooks/agent-a`;
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
const install = 'npm install react lodash && pip install requests==2.31.0';
// Fill the cache once; every measured request is then answered from it.
const first = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ command: install }) });
const answer = (await first.json()) as { permission: string };
const before = registries.requests.length;

const rows: string[] = [];
for (const [name, command, target] of [
  ['not an install: git status && ls -la', 'git status && ls -la', 'p99 < 5 ms, >= 3,000 req/s'],
  [`cached install (3 packages, first answer: ${answer.permission})`, install, 'p99 < 20 ms'],
] as const) {
  const body = JSON.stringify({ command, hook_event_name: 'beforeShellExecution' });
  await autocannon({ url, method: 'POST', headers, body, connections, duration: 2 });
  const r = await autocannon({ url, method: 'POST', headers, body, connections, duration: seconds });
  rows.push(
    `${name.padEnd(52)} ${Math.round(r.requests.average).toString().padStart(7)} req/s  p50 ${String(r.latency.p50).padStart(3)} ms` +
      `  p99 ${String(r.latency.p99).padStart(3)} ms  errors ${r.errors + r.non2xx}   target: ${target}`,
  );
}
await service.stop();
console.log(
  `${connections} connections, ${seconds} s a run, loopback, ${execFileSync('nproc', { encoding: 'utf8' }).trim()} cores`,
);
console.log(rows.join('\n'));
console.log(`registry requests during the measured runs: ${registries.requests.length - before}`);
await registries.stop();
rmSync(dir, { recursive: true, force: true });
