/**
 * `npm run bench:http`: requests per second and p50/p99 latency of an authenticated request
 * (`GET /api/account`: key lookup, rate limit, usage read, JSON) against the real service process,
 * on SQLite and on PostgreSQL, side by side; `GET /healthz` (no key, no database) as the floor.
 * The service runs as its own process; autocannon loads it over loopback from this one. Also the
 * dashboard's overview page, signed in by a session, at 8 connections (target: p99 under 20 ms on
 * SQLite), and what one password hash costs (sign-in is slow on purpose).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { hashPassword } from '../src/auth/passwords.js';
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
  const cookie = await signedUpCookie(origin);
  const rows = [];
  for (const [name, path, headers, clients] of [
    ['GET /healthz (no key; pings the database)', '/healthz', {}, connections],
    ['GET /api/account (authenticated)', '/api/account', { authorization: `Bearer ${key}` }, connections],
    ['GET /dashboard (signed in, 8 connections)', '/dashboard', { cookie }, 8],
  ] as const) {
    // A short warm-up so the JIT and the connection pool are ready, then the measured run.
    await autocannon({ url: `${origin}${path}`, headers, connections: clients, duration: 2 });
    const r = await autocannon({
      url: `${origin}${path}`,
      headers,
      connections: clients,
      duration: seconds,
    });
    const errors = r.errors + r.non2xx;
    rows.push(
      `${label.padEnd(11)} ${name.padEnd(42)} ${Math.round(r.requests.average).toString().padStart(8)} req/s` +
        `  p50 ${String(r.latency.p50).padStart(4)} ms  p99 ${String(r.latency.p99).padStart(4)} ms  errors ${errors}`,
    );
  }
  await service.stop();
  return rows;
}

/** A new account through the real sign-up form; its session cookie. */
async function signedUpCookie(origin: string): Promise<string> {
  const res = await fetch(`${origin}/auth/signup`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({ email: 'bench-page@example.com', password: 'a bench password' }).toString(),
  });
  const cookie = /svc_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];
  if (cookie === undefined) throw new Error(`sign-up answered ${res.status}`);
  return cookie;
}

/** Milliseconds per argon2id hash (the sign-in parameters), the median of 20 in this process. */
async function passwordHashMs(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    await hashPassword(`bench password ${i}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return Math.round((times[10] as number) * 10) / 10;
}

const dir = mkdtempSync(join(tmpdir(), 'svc-http-bench-'));
console.log(
  `${connections} connections, ${seconds} s a run, on loopback (${execFileSync('nproc', { encoding: 'utf8' }).trim()} cores)`,
);
const results = await benchDatabase('SQLite', `sqlite:${join(dir, 'svc.db')}`);
if (postgresReachable()) results.push(...(await benchDatabase('PostgreSQL', POSTGRES)));
else results.push('PostgreSQL  not reachable at 127.0.0.1:5432: skipped');
rmSync(dir, { recursive: true, force: true });
results.push(`password hash (argon2id, m=19456 KiB, t=2, p=1): ${await passwordHashMs()} ms median of 20`);
console.log(results.join('\n'));
