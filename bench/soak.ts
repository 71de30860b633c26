/**
 * `npm run soak` (SVC_SOAK_SECONDS, default 300): three `svc serve` instances on one PostgreSQL and
 * one Redis behind HAProxy, all on loopback, under mixed traffic (hooks, binary downloads, the API,
 * MCP, sign-ins and dashboard scans), with faults injected on a schedule:
 * - at 20 %: `kill -9` of the instance running a scan; it is started again 15 s later;
 * - at 40 %: the package registries hang for 15 s; at 47 % they answer 500 for 10 s;
 * - at 55 %: PostgreSQL is stopped for 10 s and started again;
 * - at 75 %: Redis is stopped for 10 s and started again (empty: it keeps nothing on disk);
 * - at 90 %: SIGTERM to the instance running a scan (a rolling restart); it is started again.
 * Prints requests per second and p50/p99 per route, and asserts: no 5xx and no request left
 * without an answer outside the fault windows (inside them each fault's own outcome), the CI-run
 * count stored equals the binary downloads answered 200, the per-IP API limit holds across
 * instances (per instance while Redis is down), every scan queued finished exactly once, and hooks
 * answered within 5 s while the registries hung and while the database was down.
 *
 * Needs haproxy (`apt-get install -y haproxy`), PostgreSQL at 127.0.0.1:5432 and Redis at
 * 127.0.0.1:6379 (the same ones the tests use). Makes its own database and uses Redis database 7.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { FakeRegistries } from '../test/helpers/fake-registries.js';
import { GitHttpServer } from '../test/helpers/git-http-server.js';
import { freePort } from '../test/helpers/service-process.js';
import { CLI, runSvc } from '../test/helpers/svc-cli.js';
import { haproxyVersion, startBalancer } from './soak/balancer.js';
import { percentile, type Route, send, Traffic } from './soak/traffic.js';
import { buildSyntheticHistory } from './synthetic-history.js';

const SECONDS = Number(process.env.SVC_SOAK_SECONDS ?? 300);
const CONNECTIONS = Number(process.env.SVC_SOAK_CONNECTIONS ?? 16);
const CLIENTS = 4096;
const POSTGRES = process.env.SVC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS = 'redis://127.0.0.1:6379/7';

const failures: string[] = [];
const expectThat = (ok: boolean, what: string) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const version = haproxyVersion();
if (version === null) {
  console.error('npm run soak needs haproxy: apt-get install -y haproxy');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'svc-soak-'));
const database = `svc_soak_${process.pid}`;
/** Runs one statement on the `test` database with a connection of its own (PostgreSQL restarts meanwhile). */
async function onPostgres(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
await onPostgres(`create database ${database}`);
const databaseUrl = POSTGRES.replace(/\/[^/]*$/, `/${database}`);
execFileSync('redis-cli', ['-n', '7', 'flushdb'], { stdio: 'ignore' });

const registries = await FakeRegistries.start();
registries.addPackage('npm', 'lodash', { versions: { '4.17.21': new Date('2020-01-01T00:00:00Z') } });
const git = await GitHttpServer.start({ niceness: 19 });
const source = join(dir, 'source');
await buildSyntheticHistory(source, { commits: 300, bytesPerCommit: 600, secretEvery: 40, mergeEvery: 50 });
const repoUrl = git.publish(source, 'soak', 'history');
const binary = join(dir, 'svc-linux-x64');
writeFileSync(binary, Buffer.alloc(64 * 1024, 7));

const lbPort = await freePort();
const baseUrl = `http://127.0.0.1:${lbPort}`;
const env: NodeJS.ProcessEnv = {
  ...process.env,
  ...registries.env,
  SVC_DATABASE_URL: databaseUrl,
  SVC_REDIS_URL: REDIS,
  SVC_SCAN_QUEUE: 'bullmq',
  SVC_SCAN_HOSTS: git.origin,
  SVC_SCAN_LEASE_S: '5',
  SVC_BINARY_PATH: binary,
  SVC_BASE_URL: baseUrl,
  // The load generator stands for the clients' own proxy (a CDN) in front of the balancer: two hops.
  SVC_TRUST_PROXY: '2',
  SVC_PAID_MONTHLY_CI_RUNS: '100000000',
};

await runSvc(['admin', 'create-user', '--email', 'soak@example.test', '--plan', 'paid'], { env });
const key = (await runSvc(['admin', 'create-key', '--email', 'soak@example.test'], { env })).stdout.trim();
if (!key.startsWith('svc_')) throw new Error('could not create the soak user');
const auth = { authorization: `Bearer ${key}` };

/** One `svc serve`, its log lines in a file of its own. */
interface Instance {
  name: string;
  port: number;
  logFile: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}
async function startInstance(name: string, port: number): Promise<Instance> {
  const logFile = join(dir, `${name}.log`);
  const out = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...env, PORT: String(port), SVC_SCAN_WORK_DIR: join(dir, `work-${name}`) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(out);
  child.stderr?.pipe(out);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/livez`)).ok) break;
    } catch {
      await sleep(100);
    }
  }
  return { name, port, logFile, child, exited };
}
const instances: Instance[] = [];
for (const name of ['a', 'b', 'c']) instances.push(await startInstance(name, await freePort()));
const balancer = await startBalancer(
  dir,
  lbPort,
  instances.map((i) => ({ name: i.name, port: i.port })),
);

const mcpMeta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'soak', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const json = { 'content-type': 'application/json' };
let seq = 0;
/** Claude Code lets a command through with no decision at all: `{}`, or a note in `systemMessage`. */
const allows = (status: number, body: string) => status === 200 && !body.includes('permissionDecision');
const routes: Route[] = [
  {
    name: 'hook, not an install',
    weight: 30,
    make: () => ({
      method: 'POST',
      path: '/api/hooks/agent-b',
      headers: { ...auth, ...json },
      body: JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'git status && ls -la' } }),
    }),
    check: allows,
  },
  {
    name: 'hook, npm install',
    weight: 10,
    // Mostly a package the registry cache holds; some a name never seen, which needs the registry
    // (denied as not existing, or allowed unchecked while the registry hangs).
    make: (ip) => ({
      method: 'POST',
      path: '/api/hooks/agent-a',
      headers: { ...auth, ...json },
      body: JSON.stringify({
        command: ip.endsWith('33') ? `npm install soak-new-${seq++}` : 'npm install lodash',
        cwd: '/w',
      }),
    }),
    check: (status, body) => status === 200 && body.includes('"permission"'),
  },
  {
    name: 'binary download',
    weight: 8,
    make: () => ({ method: 'GET', path: '/api/action/binary?repo=soak/app', headers: auth }),
    check: (status, body) => status === 200 && body.length === 64 * 1024,
  },
  {
    name: 'GET /api/account',
    weight: 15,
    make: () => ({ method: 'GET', path: '/api/account', headers: auth }),
    check: (status) => status === 200,
  },
  {
    name: 'MCP check_command',
    weight: 15,
    make: () => ({
      method: 'POST',
      path: '/mcp',
      headers: {
        ...auth,
        ...json,
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'check_command',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'check_command', arguments: { command: 'ls' }, _meta: mcpMeta },
      }),
    }),
    check: (status, body) => status === 200 && body.includes('"decision":"allow"'),
  },
  {
    name: 'sign-in (wrong password)',
    weight: 3,
    make: () => ({
      method: 'POST',
      path: '/auth/signin',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: baseUrl },
      body: 'email=soak%40example.test&password=not-the-password',
    }),
    check: (status) => status === 401 || status === 200,
  },
];

// Scans: one queued every few seconds by a client of its own; their ids kept to check at the end.
const scanIds: string[] = [];
const scanStarts: { at: number; status: number }[] = [];
const scanAgent = new Agent({ keepAlive: true });
let scanning = true;
const scanLoop = (async () => {
  for (let n = 0; scanning; n++) {
    const r = await send(
      `${baseUrl}/api/scans`,
      'POST',
      { ...auth, ...json, 'x-forwarded-for': `10.200.0.${n % 250}` },
      JSON.stringify({ url: repoUrl }),
      scanAgent,
    ).catch(() => null);
    scanStarts.push({ at: Date.now(), status: r?.status ?? 0 });
    if (r?.status === 202) scanIds.push((JSON.parse(r.body) as { id: string }).id);
    await sleep(4000);
  }
})();

const limitAgent = new Agent({ keepAlive: true, maxSockets: 8 });
/** `count` GET /api/account from one client address at once; their statuses (0: no answer). */
function burst(ip: string, count: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: count }, () =>
      send(`${baseUrl}/api/account`, 'GET', { ...auth, 'x-forwarded-for': ip }, undefined, limitAgent).then(
        (r) => r.status,
        () => 0,
      ),
    ),
  );
}

const traffic = new Traffic(baseUrl, routes, CLIENTS, CONNECTIONS);
const startedAt = Date.now();
const windows: { name: string; from: number; to: number }[] = [];
const at = (share: number) => sleep(Math.max(0, startedAt + share * SECONDS * 1000 - Date.now()));

// Fault 1: kill -9 the instance running a scan (one that logged "scan started" for a scan it has
// not finished), then start it again on the same port after 15 s.
await at(0.2);
/** Whether an instance is running a scan: it logged "scan started" for one it has not finished. */
function runsAScan(i: Instance): boolean {
  // The current process's lines only: a killed one's log ends with the scan it was running.
  const whole = readFileSync(i.logFile, 'utf8');
  const log = whole.slice(whole.lastIndexOf('"msg":"listening"'));
  const started = [...log.matchAll(/"scan":"([^"]+)"[^\n]*"scan started"/g)].map((m) => m[1]);
  return started.some((id) => !log.includes(`"scan":"${id}","status"`));
}
const running = instances.find(runsAScan);
const victim = running ?? instances[0]!;
const killFrom = Date.now();
victim.child.kill('SIGKILL');
await victim.exited;
console.log(`killed instance ${victim.name} (${running ? 'mid-scan' : 'no scan was running'})`);
await sleep(15_000);
instances[instances.indexOf(victim)] = await startInstance(victim.name, victim.port);
windows.push({ name: 'kill -9', from: killFrom, to: Date.now() + 2000 });

// Fault 2: the registries hang for 15 s, then answer 500 for 10 s; install hooks must still answer
// within 5 s, allowing what they could not check and saying why.
/** A hook check of a package never seen (it needs the registry): status, time, answer. */
async function probeInstall(): Promise<{ status: number; ms: number; body: string }> {
  const t0 = performance.now();
  const r = await send(
    `${baseUrl}/api/hooks/agent-a`,
    'POST',
    { ...auth, ...json, 'x-forwarded-for': '10.254.0.1' },
    JSON.stringify({ command: `npm install soak-probe-${seq++}`, cwd: '/w' }),
    scanAgent,
  ).catch(() => ({ status: 0, body: '' }));
  return { status: r.status, ms: performance.now() - t0, body: r.body };
}
const probes: { fault: string; status: number; ms: number; body: string }[] = [];
for (const [fault, behavior, seconds] of [
  ['registries hang', 'hang', 15],
  ['registries answer 500', 500, 10],
] as const) {
  await at(fault === 'registries hang' ? 0.4 : 0.47);
  const from = Date.now();
  for (const eco of ['npm', 'OSV'] as const) registries.setBehavior(eco, behavior);
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until - 5000) {
    probes.push({ fault, ...(await probeInstall()) });
    await sleep(1000);
  }
  await sleep(Math.max(0, until - Date.now()));
  for (const eco of ['npm', 'OSV'] as const) registries.setBehavior(eco, null);
  // Checks that started during the fault end within their 4.5 s budget after it.
  windows.push({ name: fault, from, to: Date.now() + 5000 });
}

// Fault 3: PostgreSQL down for 10 s. The API answers 503 meanwhile; the hooks keep answering.
await at(0.55);
const cluster = readdirSync('/etc/postgresql')[0]!;
const pgFrom = Date.now();
execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', cluster, 'main', 'stop', '-m', 'fast']);
await sleep(10_000);
execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', cluster, 'main', 'start']);
const pgBack = Date.now();
let recoveredAfterMs = -1;
while (Date.now() - pgBack < 30_000) {
  const r = await send(
    `${baseUrl}/api/account`,
    'GET',
    { ...auth, 'x-forwarded-for': '10.252.0.1' },
    undefined,
    scanAgent,
  ).catch(() => null);
  if (r?.status === 200) {
    recoveredAfterMs = Date.now() - pgBack;
    break;
  }
  await sleep(100);
}
windows.push({ name: 'PostgreSQL down', from: pgFrom, to: Date.now() + 1000 });

// Fault 4: Redis down for 10 s. Limits fall back to each instance's own: 330 requests from one new
// address then pass (each instance allows its 300), where with Redis only 300 would.
await at(0.75);
const redisFrom = Date.now();
execFileSync('redis-cli', ['-p', '6379', 'shutdown', 'nosave'], { stdio: 'ignore' });
await sleep(1000);
const duringRedis = await burst('10.253.0.1', 330);
await sleep(8000);
execFileSync('redis-server', [
  '--daemonize',
  'yes',
  '--bind',
  '127.0.0.1',
  '--port',
  '6379',
  '--save',
  '',
  '--appendonly',
  'no',
]);
await sleep(1000);
windows.push({ name: 'Redis down', from: redisFrom, to: Date.now() + 1000 });

// Fault 5: a rolling restart's SIGTERM, to the instance running a scan: it stops taking connections,
// finishes what it is answering, gives the scan back, and exits within 10 s; started again after.
await at(0.9);
const stopped = instances.find(runsAScan) ?? instances[1]!;
const termFrom = Date.now();
stopped.child.kill('SIGTERM');
const termCode = await stopped.exited;
const termMs = Date.now() - termFrom;
const stoppedLog = readFileSync(stopped.logFile, 'utf8');
const gaveBack = stoppedLog.includes('scan given back to the queue (stopping)');
console.log(
  `stopped instance ${stopped.name} with SIGTERM in ${termMs} ms (${gaveBack ? 'mid-scan' : 'no scan was running'})`,
);
instances[instances.indexOf(stopped)] = await startInstance(stopped.name, stopped.port);
windows.push({ name: 'SIGTERM', from: termFrom, to: Date.now() + 2000 });

await at(1);
await traffic.stop();
scanning = false;
await scanLoop;
const elapsed = (Date.now() - startedAt) / 1000;

// The per-IP API limit, across instances: 330 requests from one new address, spread by the balancer
// over three instances, must see exactly the 300 the limit allows.
const limitStatuses = await burst('10.250.250.250', 330);

// Every scan queued finishes, exactly once, though one instance died mid-scan.
const scanDeadline = Date.now() + 120_000;
const outcomes = new Map<string, string>();
for (const id of scanIds) {
  for (;;) {
    const r = await send(`${baseUrl}/api/scans/${id}`, 'GET', auth, undefined, scanAgent).catch(() => null);
    const status = r?.status === 200 ? (JSON.parse(r.body) as { status: string }).status : 'unknown';
    if (status === 'done' || status === 'failed' || Date.now() > scanDeadline) {
      outcomes.set(id, status);
      break;
    }
    await sleep(500);
  }
}
const logs = instances.map((i) => readFileSync(i.logFile, 'utf8')).join('\n');
/** How many times an instance logged the scan as finished done (a dropped result is not a finish). */
const finishedTimes = (id: string) =>
  logs
    .split('\n')
    .filter((line) => line.includes(`"scan":"${id}","status":"done"`) && line.includes('"scan finished"'))
    .length;

const account = await send(
  `${baseUrl}/api/account`,
  'GET',
  { ...auth, 'x-forwarded-for': '10.251.0.1' },
  undefined,
  scanAgent,
);
const storedRuns = (JSON.parse(account.body) as { ciRuns: { used: number } }).ciRuns.used;

// Figures.
const inWindow = (t: number) => windows.some((w) => t >= w.from && t <= w.to);
const inFault = (name: string, t: number) => windows.some((w) => w.name === name && t >= w.from && t <= w.to);
const outside = traffic.samples.filter((s) => !inWindow(s.at));
const total = traffic.samples.length;
console.log(
  `\n${instances.length} instances on PostgreSQL + Redis behind ${version}; ${CONNECTIONS} connections, ` +
    `${elapsed.toFixed(0)} s, ${(total / elapsed).toFixed(0)} requests/s, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
);
console.log('route                         requests   p50 ms   p99 ms   statuses');
for (const route of routes) {
  const s = traffic.stats.get(route.name)!;
  const statuses = [...s.statuses].map(([code, n]) => `${code}:${n}`).join(' ');
  console.log(
    `${route.name.padEnd(29)} ${String(s.latenciesMs.length).padStart(8)} ${percentile(s.latenciesMs, 50).toFixed(0).padStart(8)} ` +
      `${percentile(s.latenciesMs, 99).toFixed(0).padStart(8)}   ${statuses}${s.errors ? ` no-answer:${s.errors}` : ''}${s.wrong ? ` wrong:${s.wrong}` : ''}`,
  );
}
for (const w of windows) {
  const inside = traffic.samples.filter((s) => s.at >= w.from && s.at <= w.to);
  const bad = inside.filter((s) => s.status === 0 || s.status >= 500).length;
  console.log(
    `fault "${w.name}": ${((w.to - w.from) / 1000).toFixed(1)} s, ${inside.length} requests during it, ${bad} without an answer or 5xx`,
  );
}
console.log('');

const bad = outside.filter((s) => s.status === 0 || s.status >= 500);
expectThat(
  bad.length === 0,
  `no 5xx and no request without an answer outside the fault windows (${bad.length} of ${outside.length})`,
);
const wrong = [...traffic.stats.values()].reduce((sum, s) => sum + s.wrong, 0);
expectThat(wrong === 0, `every answer is the route's expected answer (${wrong} not)`);
const downloads = traffic.stats.get('binary download')!.statuses.get(200) ?? 0;
expectThat(
  storedRuns === downloads,
  `CI runs stored (${storedRuns}) = binary downloads answered 200 (${downloads})`,
);
const allowed = limitStatuses.filter((s) => s === 200).length;
const limited = limitStatuses.filter((s) => s === 429).length;
expectThat(
  allowed === 300 && limited === 30,
  `one address gets 300 API requests a minute across instances (200: ${allowed}, 429: ${limited})`,
);
// A scan started while Redis is down is still recorded and runs once a worker reaches Redis again;
// while PostgreSQL is down it cannot be recorded, and says so.
const scanRefused = scanStarts.filter(
  (s) => s.status !== 202 && !(s.status === 503 && inFault('PostgreSQL down', s.at)),
);
expectThat(
  scanRefused.length === 0,
  `every scan started was accepted (202), but while PostgreSQL was down (503) (${scanStarts.length} started, ${scanRefused.length} otherwise)`,
);
const notDone = [...outcomes].filter(([, s]) => s !== 'done');
expectThat(
  scanIds.length > 0 && notDone.length === 0,
  `every queued scan finished (${scanIds.length} queued, ${notDone.length} not done)`,
);
const twice = scanIds.filter((id) => finishedTimes(id) !== 1);
expectThat(twice.length === 0, `every scan finished exactly once (${twice.length} finished 0 or 2+ times)`);
const during = (name: string, route?: (r: string) => boolean) => {
  const w = windows.find((x) => x.name === name)!;
  return traffic.samples.filter(
    (s) => s.at >= w.from && s.at <= w.to && (route === undefined || route(s.route)),
  );
};
const slowest = (samples: { ms: number }[]) => Math.round(Math.max(0, ...samples.map((s) => s.ms)));
const isHook = (r: string) => r.startsWith('hook');

const killed = during('kill -9');
const killedLost = killed.filter((s) => s.status === 0 || s.status >= 500);
expectThat(
  killedLost.length <= 2,
  `kill -9: the balancer routes around the dead instance (${killedLost.length} of ${killed.length} requests lost: one the instance was answering when it died cannot be retried)`,
);
const hangHooks = during('registries hang', isHook);
expectThat(
  hangHooks.length > 0 && hangHooks.every((s) => s.status === 200 && s.ms < 5000),
  `registries hang: hooks answered within 5 s (${hangHooks.length} answers, slowest ${slowest(hangHooks)} ms)`,
);
for (const fault of ['registries hang', 'registries answer 500']) {
  const answers = probes.filter((p) => p.fault === fault);
  const told = answers.filter(
    (p) => p.status === 200 && p.ms < 5000 && p.body.includes('allow') && p.body.includes('did not answer'),
  );
  expectThat(
    answers.length > 0 && told.length === answers.length,
    `${fault}: a package never seen is allowed within 5 s, saying the registry did not answer (${told.length} of ${answers.length}, slowest ${slowest(answers)} ms)`,
  );
}
const pgAll = during('PostgreSQL down');
const pgHooks = during('PostgreSQL down', isHook);
expectThat(
  pgHooks.length > 0 && pgHooks.every((s) => s.status === 200 && s.ms < 5000),
  `PostgreSQL down: hooks answered 200 within 5 s (${pgHooks.length} answers, slowest ${slowest(pgHooks)} ms)`,
);
const pgOther = pgAll.filter((s) => s.status !== 200 && s.status !== 503 && s.status !== 401);
expectThat(
  pgOther.length === 0,
  `PostgreSQL down: every answer 200 or a clear 503 (${pgAll.filter((s) => s.status === 503).length} x 503, ${pgOther.length} other failures)`,
);
expectThat(
  recoveredAfterMs >= 0,
  `PostgreSQL back: the API answers again without a restart (after ${recoveredAfterMs} ms)`,
);
const redisAll = during('Redis down');
const redisBad = redisAll.filter((s) => s.status === 0 || s.status >= 500);
expectThat(redisBad.length === 0, `Redis down: no 5xx (${redisBad.length} of ${redisAll.length})`);
const redisAllowed = duringRedis.filter((s) => s === 200).length;
expectThat(
  redisAllowed > 300,
  `Redis down: limits fall back to each instance (${redisAllowed} of 330 from one address allowed; with Redis, 300)`,
);

const terminated = during('SIGTERM');
const terminatedLost = terminated.filter((s) => s.status === 0 || s.status >= 500);
expectThat(
  termCode === 0 && termMs < 10_000,
  `SIGTERM: the instance exited 0 within 10 s (exit ${termCode}, ${termMs} ms${gaveBack ? ', its scan given back' : ''})`,
);
expectThat(
  terminatedLost.length === 0,
  `SIGTERM: no request lost while the instance stopped (${terminatedLost.length} of ${terminated.length})`,
);

await balancer.stop();
for (const i of instances) {
  i.child.kill('SIGTERM');
  await i.exited;
}
scanAgent.destroy();
limitAgent.destroy();
await registries.stop();
await git.stop();
await onPostgres(`drop database if exists ${database} with (force)`);
execFileSync('redis-cli', ['-n', '7', 'flushdb'], { stdio: 'ignore' });
if (failures.length > 0) {
  console.log(`\n${failures.length} check(s) failed; logs kept in ${dir}`);
  process.exit(1);
}
rmSync(dir, { recursive: true, force: true });
