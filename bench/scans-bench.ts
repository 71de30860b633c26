/**
 * `npm run bench:scans`: 20 dashboard scans of one 2,000-commit repository, queued at once against the
 * real service process (embedded queue, SQLite) and cloned from a real git server on loopback (git
 * http-backend). Reports the time to drain the queue, the service's peak memory (its own VmHWM, and
 * the sampled peak of it plus its git children), and GET /api/account latency under a steady
 * dashboard-like load while the scans run, beside the same load with no scan running. Runs once with
 * the embedded queue and once with BullMQ on Redis (SVC_SCAN_QUEUE=bullmq), side by side.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { REDIS_URL, redisAvailable } from '../test/helpers/databases.js';
import { GitHttpServer } from '../test/helpers/git-http-server.js';
import { startServiceProcess } from '../test/helpers/service-process.js';
import { treeMemory } from './measure.js';
import { buildSyntheticHistory } from './synthetic-history.js';

const SCANS = Number(process.env.SVC_BENCH_SCANS ?? 20);
const COMMITS = Number(process.env.SVC_BENCH_COMMITS ?? 2000);
/** The API load while scans run: a busy dashboard, not a saturation test. */
const RATE = Number(process.env.SVC_BENCH_RATE ?? 100);
const CONNECTIONS = 4;

const dir = mkdtempSync(join(tmpdir(), 'svc-scans-bench-'));
// The code host's git work runs elsewhere in real life: here it must not compete with the service.
const git = await GitHttpServer.start({ niceness: 19 });
try {
  const source = join(dir, 'source');
  const history = await buildSyntheticHistory(source, {
    commits: COMMITS,
    bytesPerCommit: 600,
    secretEvery: 40,
    mergeEvery: 50,
  });
  const url = git.publish(source, 'bench', 'history');
  const packMiB =
    Number(execFileSync('du', ['-sk', git.pathOf('bench', 'history')], { encoding: 'utf8' }).split('\t')[0]) /
    1024;

  /** One run of the bench with the given queue engine, printed as it ends. */
  async function runWith(queue: 'database' | 'bullmq'): Promise<void> {
    const service = await startServiceProcess({
      SVC_DATABASE_URL: `sqlite:${join(dir, `svc-${queue}.db`)}`,
      SVC_SCAN_QUEUE: queue,
      ...(queue === 'bullmq' ? { SVC_REDIS_URL: REDIS_URL } : {}),
      SVC_SCAN_HOSTS: git.origin,
      SVC_SCAN_WORK_DIR: join(dir, `work-${queue}`),
      // Limits raised for the run: all starts come from one address.
      SVC_RATE_LIMIT_SCAN_START: '1000',
      SVC_RATE_LIMIT_API: '1000000000',
    });
    const pid = service.pid!;
    const headers = { authorization: `Bearer ${service.key}`, 'content-type': 'application/json' };
    const load = (duration: number) =>
      autocannon({
        url: `${service.base}/api/account`,
        headers,
        connections: CONNECTIONS,
        overallRate: RATE,
        duration,
      });

    await load(2); // warm-up
    const idle = await load(5);

    const ids: string[] = [];
    const started = process.hrtime.bigint();
    for (let i = 0; i < SCANS; i++) {
      const r = await fetch(`${service.base}/api/scans`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url }),
      });
      if (r.status !== 202) throw new Error(`POST /api/scans answered ${r.status}`);
      ids.push(((await r.json()) as { id: string }).id);
    }
    let peakTreeKiB = 0;
    const sampler = setInterval(() => {
      peakTreeKiB = Math.max(peakTreeKiB, treeMemory(pid).total);
    }, 50);
    // The load runs until the queue drains (a long duration, stopped below).
    const busy = autocannon({
      url: `${service.base}/api/account`,
      headers,
      connections: CONNECTIONS,
      overallRate: RATE,
      duration: 3600,
    });
    const statuses = new Map<string, string>();
    let findings = 0;
    while (statuses.size < ids.length) {
      await new Promise((r) => setTimeout(r, 250));
      for (const id of ids) {
        if (statuses.has(id)) continue;
        const scan = (await (await fetch(`${service.base}/api/scans/${id}`, { headers })).json()) as {
          status: string;
          findings: unknown[] | null;
        };
        if (scan.status === 'queued' || scan.status === 'running') break; // the queue runs in order
        statuses.set(id, scan.status);
        findings = scan.findings?.length ?? 0;
      }
    }
    const drainSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    (busy as unknown as { stop(): void }).stop();
    const during = await busy;
    clearInterval(sampler);
    const hwmKiB = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    await service.stop();

    const done = [...statuses.values()].filter((s) => s === 'done').length;
    const row = (label: string, r: autocannon.Result) =>
      `  ${label.padEnd(22)} ${Math.round(r.requests.average).toString().padStart(5)} req/s  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  max ${r.latency.max} ms  errors ${r.errors + r.non2xx}`;
    console.log(
      [
        `\n${queue === 'bullmq' ? 'BullMQ on Redis (SVC_SCAN_QUEUE=bullmq)' : 'embedded queue (the database)'}, load ${execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ').slice(0, 3).join(' ')}:`,
        `drained in ${drainSeconds.toFixed(1)} s (${(drainSeconds / SCANS).toFixed(2)} s a scan): ${done} done, ${SCANS - done} failed; ${findings} findings each`,
        `service peak memory: ${(hwmKiB / 1024).toFixed(0)} MiB (node, VmHWM); ${(peakTreeKiB / 1024).toFixed(0)} MiB with its git processes (sampled)`,
        `GET /api/account at ${RATE} req/s over ${CONNECTIONS} connections:`,
        row('no scan running', idle),
        row('while scans run', during),
        `p99 while scans run ${during.latency.p99 < 50 ? 'under' : 'OVER'} the 50 ms target`,
      ].join('\n'),
    );
  }

  console.log(
    `repository: ${history.commits} commits, ${packMiB.toFixed(1)} MiB on the server; ${SCANS} scans queued at once (${execFileSync('nproc', { encoding: 'utf8' }).trim()} cores)`,
  );
  // Side by side in one sitting: the same scans through each queue engine (BullMQ when Redis answers).
  await runWith('database');
  if (await redisAvailable('the BullMQ row of bench:scans')) await runWith('bullmq');
} finally {
  await git.stop();
  rmSync(dir, { recursive: true, force: true });
}
