/**
 * `npm run bench:http`: requests per second and p50/p99 latency of an authenticated request
 * (`GET /api/account`: key lookup, rate limit, usage read, JSON) against the real service process,
 * on SQLite and on PostgreSQL, side by side; `GET /healthz` (no key, no database) as the floor.
 * The service runs as its own process; autocannon loads it over loopback from this one.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startServiceProcess } from '../test/helpers/service-process.js';

const seconds = Number(process.env.SVC_BENCH_SECONDS ?? 10);
const connections = Number(process.env.SVC_BENCH_CONNECTIONS ?? 32);
const POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';

function postgresReachable(): boolean {
  try {
    execFileSync('pg_isready', ['-h', '127.0.0.1', '-p', '5432', '-q']);
    return true;
  } catch {
    return false;
  }
}

async function benchDatabase(label: string, databaseUrl: string) {
  // Limits raised for the run: the bench measures the service, not the limiter saying no.
  const service = await startServiceProcess({
    SVC_DATABASE_URL: databaseUrl,
    SVC_RATE_LIMIT_API: '1000000000',
  });
  const { base: origin, key } = service;
  const rows = [];
  for (const [name, path, headers] of [
    ['GET /healthz (no key; pings the database)', '/healthz', {}],
    ['GET /api/account (authenticated)', '/api/account', { authorization: `Bearer ${key}` }],
  ] as const) {
    // A short warm-up so the JIT and the connection pool are ready, then the measured run.
    await autocannon({ url: `${origin}${path}`, headers, connections, duration: 2 });
    const r = await autocannon({
      url: `${origin}${path}`,
      headers,
      connections,
      duration: seconds,
    });
    const errors = r.errors + r.non2xx;
    rows.push(
      `${label.padEnd(11)} ${name.padEnd(38)} ${Math.round(r.requests.average).toString().padStart(8)} req/s` +
        `  p50 ${String(r.latency.p50).padStart(4)} ms  p99 ${String(r.latency.p99).padStart(4)} ms  errors ${errors}`,
    );
  }
  await service.stop();
  return rows;
}

const dir = mkdtempSync(join(tmpdir(), 'svc-http-bench-'));
console.log(
  `${connections} connections, ${seconds} s a run, on loopback (${execFileSync('nproc', { encoding: 'utf8' }).trim()} cores)`,
);
const results = await benchDatabase('SQLite', `sqlite:${join(dir, 'svc.db')}`);
if (postgresReachable()) results.push(...(await benchDatabase('PostgreSQL', POSTGRES)));
else results.push('PostgreSQL  not reachable at 127.0.0.1:5432: skipped');
rmSync(dir, { recursive: true, force: true });
console.log(results.join('\n'));
