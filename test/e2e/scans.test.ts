import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/storage/index.js';
import { openTestDatabase, REDIS_URL, scaleOutAvailable, type TestDatabase } from '../helpers/databases.js';
import { fakeCloudKeyId } from '../helpers/fake-secrets.js';
import { GitHttpServer } from '../helpers/git-http-server.js';
import { TestRepo } from '../helpers/git-repo.js';
import { startServiceProcess } from '../helpers/service-process.js';
import { CLI } from '../helpers/svc-cli.js';

let dir: string;
let git: GitHttpServer;
let url: string;
const SECRET = fakeCloudKeyId(77);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-scans-e2e-'));
  // About 1.5 MB of pack served at 256 KB/s: the clone takes several seconds, time to kill the service.
  git = await GitHttpServer.start({ bytesPerSecond: 256 * 1024 });
  const repo = new TestRepo();
  repo.commitFiles({ 'assets/blob.bin': randomBytes(1536 * 1024) }, 'assets');
  repo.commitFiles({ 'deploy.env': `AWS_ACCESS_KEY_ID=${SECRET}\n` }, 'deploy');
  url = git.publish(repo.dir, 'octo', 'slow');
  repo.cleanup();
});

afterAll(async () => {
  await git?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Processes working in `dir` or naming it or `url` (a clone, its transfer helper, a scan's gits). */
function processesOf(dir: string, url: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const cmdline = readFileSync(`/proc/${p}/cmdline`, 'latin1');
        return (
          cmdline.includes(dir) || cmdline.includes(url) || readlinkSync(`/proc/${p}/cwd`).startsWith(dir)
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/**
 * `svc serve` on a database of its own (`name`), with a scan of the slow repository started and
 * running: its clone under way, its directory there. The settings, to start a service on it again.
 */
async function serviceMidScan(name: string, leaseSeconds: number) {
  const workDir = join(dir, `${name}-work`);
  const databaseUrl = `sqlite:${join(dir, `${name}.db`)}`;
  const env = {
    SVC_DATABASE_URL: databaseUrl,
    SVC_BINARY_PATH: join(dir, 'not-published'),
    SVC_SCAN_HOSTS: git.origin,
    SVC_SCAN_WORK_DIR: workDir,
    SVC_SCAN_LEASE_S: String(leaseSeconds),
  };
  const first = await startServiceProcess(env, 'free', { capture: true });
  const api = (base: string, path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${first.key}`, 'content-type': 'application/json' },
    });
  const started = await api(first.base, '/api/scans', { method: 'POST', body: JSON.stringify({ url }) });
  expect(started.status).toBe(202);
  const { id } = (await started.json()) as { id: string };
  for (;;) {
    const scan = (await (await api(first.base, `/api/scans/${id}`)).json()) as { status: string };
    const pack = git.requests.some((r) => r.path.endsWith('/git-upload-pack'));
    if (scan.status === 'running' && pack && existsSync(workDir) && readdirSync(workDir).length > 0) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  return { env, workDir, databaseUrl, first, api, id };
}

describe('svc serve killed mid-scan', () => {
  it('runs the scan again after a restart, to the end, with no clone left behind', async () => {
    // Killed while the clone is on its way.
    const { env, workDir, first, api, id } = await serviceMidScan('killed', 2);
    await first.kill('SIGKILL');
    expect(readdirSync(workDir)).toHaveLength(1);

    const second = await startServiceProcess(env, 'free', { capture: true, key: first.key });
    try {
      let scan: { status: string; error: string | null; findings: { maskedValue: string }[] | null };
      for (;;) {
        const answer = await api(second.base, `/api/scans/${id}`);
        expect(answer.status).toBe(200);
        scan = (await answer.json()) as typeof scan;
        if (scan.status !== 'queued' && scan.status !== 'running') break;
        // Under the API's 300 requests a minute, however long a loaded machine takes.
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(scan.error).toBeNull();
      expect(scan.status).toBe('done');
      expect(scan.findings?.map((f) => f.maskedValue)).toEqual([`AKIA${'*'.repeat(16)}`]);
      expect(second.output()).toContain('removed a leftover scan directory');
      // The scan is marked done before its own directory is removed: that follows within moments.
      await until(() => readdirSync(workDir).length === 0, 10_000);
      expect(readdirSync(workDir)).toEqual([]);
      expect(processesOf(workDir, url)).toEqual([]);
      expect(second.output()).not.toContain(SECRET);
    } finally {
      await second.stop();
    }
  });
});

/** Whether a process runs: a killed orphan may stay a zombie until the machine's init reaps it. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return false;
  }
}

/** The pids whose command line is git's HTTP transfer helper fetching `url`. */
function transferHelpersOf(url: string): number[] {
  return processesOf('/nonexistent', url).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')[0]!.includes('remote-http');
    } catch {
      return false;
    }
  });
}

describe('svc serve killed while its clone is stalled mid-transfer', () => {
  it("the next start's sweep kills that clone's gits, the transfer helper too, before removing the directory", async () => {
    // A pack that stops after 64 KiB, the connection left open: git's transfer helper waits on the
    // socket for good and never writes, so nothing ends it but a kill.
    const stalled = await GitHttpServer.start({ stallPackAfterBytes: 64 * 1024 });
    const repo = new TestRepo();
    repo.commitFiles({ 'assets/blob.bin': randomBytes(1024 * 1024) }, 'assets');
    const stalledUrl = stalled.publish(repo.dir, 'octo', 'stalled');
    repo.cleanup();
    const workDir = join(dir, 'stalled-work');
    const env = {
      SVC_DATABASE_URL: `sqlite:${join(dir, 'stalled.db')}`,
      SVC_BINARY_PATH: join(dir, 'not-published'),
      SVC_SCAN_HOSTS: stalled.origin,
      SVC_SCAN_WORK_DIR: workDir,
      // Long: the restarted service must not take the scan up again during the test.
      SVC_SCAN_LEASE_S: '600',
    };
    const first = await startServiceProcess(env, 'free', { capture: true });
    let left: number[] = [];
    try {
      const started = await fetch(`${first.base}/api/scans`, {
        method: 'POST',
        headers: { authorization: `Bearer ${first.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: stalledUrl }),
      });
      expect(started.status).toBe(202);
      await until(
        () =>
          transferHelpersOf(stalledUrl).length > 0 &&
          stalled.requests.some((r) => r.path.endsWith('/git-upload-pack')),
        20_000,
      );
      const helpers = transferHelpersOf(stalledUrl);
      expect(helpers.length).toBeGreaterThan(0);
      left = processesOf(workDir, stalledUrl);
      await first.kill('SIGKILL');
      // The service is gone; its clone's transfer helper is not (a process group of its own).
      await new Promise((r) => setTimeout(r, 500));
      expect(helpers.filter(running)).toEqual(helpers);

      const second = await startServiceProcess(env, 'free', { capture: true, key: first.key });
      try {
        await until(() => second.output().includes('removed a leftover scan directory'), 20_000);
        expect(second.output()).toContain('removed a leftover scan directory');
        expect(left.filter(running)).toEqual([]);
        expect(processesOf(workDir, stalledUrl).filter(running)).toEqual([]);
        expect(readdirSync(workDir)).toEqual([]);
      } finally {
        await second.stop();
      }
    } finally {
      if (first.running()) await first.kill('SIGKILL');
      for (const pid of [...left, ...processesOf(workDir, stalledUrl)]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      await stalled.stop();
    }
  });
});

describe('svc serve stopped by SIGTERM mid-scan', () => {
  it('gives the scan back to the queue at once and exits 0 within 10 s; the next start runs it', async () => {
    // A long lease: only the give-back, not a lapsed lease, can hand the scan on in time.
    const { env, workDir, databaseUrl, first, api, id } = await serviceMidScan('sigterm', 300);
    const stopAt = Date.now();
    first.process.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(Date.now() - stopAt).toBeLessThan(10_000);
    expect(first.output()).toContain('scan given back to the queue (stopping)');
    expect(readdirSync(workDir)).toEqual([]);
    const storage = await openStorage(databaseUrl);
    try {
      // Unheld now: queued again, while a running scan's 300 s lease would still hold it.
      expect(await storage.scans.listUnheldScanIds(new Date(), 10)).toEqual([id]);
    } finally {
      await storage.close();
    }

    const second = await startServiceProcess(env, 'free', { capture: true, key: first.key });
    try {
      let scan: { status: string; error: string | null };
      for (;;) {
        scan = (await (await api(second.base, `/api/scans/${id}`)).json()) as typeof scan;
        if (scan.status !== 'queued' && scan.status !== 'running') break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(scan).toMatchObject({ status: 'done', error: null });
    } finally {
      await second.stop();
    }
  });
});

const scaledOut = await scaleOutAvailable('scale-out scan tests');

describe.skipIf(!scaledOut)('two svc serve instances on PostgreSQL, scans queued in BullMQ', () => {
  let db: TestDatabase;
  let fast: GitHttpServer;
  let smallUrl: string;
  beforeAll(async () => {
    db = await openTestDatabase('postgres');
    // The scans after the kill clone at full speed from a server of their own.
    fast = await GitHttpServer.start();
    const small = new TestRepo();
    small.commitFiles({ 'deploy.env': `AWS_ACCESS_KEY_ID=${SECRET}\n` }, 'deploy');
    smallUrl = fast.publish(small.dir, 'octo', 'small');
    small.cleanup();
  });
  afterAll(async () => {
    await fast?.stop();
    await db?.cleanup();
  });

  it("runs every scan once; a SIGKILLed instance's scan finishes on the other", async () => {
    const env = (name: string) => ({
      SVC_DATABASE_URL: db.processUrl,
      SVC_REDIS_URL: REDIS_URL,
      SVC_SCAN_QUEUE: 'bullmq',
      // The limit's counters are in the shared Redis, which other tests and runs use too.
      SVC_RATE_LIMIT_SCAN_START: '1000',
      SVC_BINARY_PATH: join(dir, 'not-published'),
      SVC_SCAN_HOSTS: `${git.origin},${fast.origin}`,
      SVC_SCAN_WORK_DIR: join(dir, `work-${name}`),
      SVC_SCAN_LEASE_S: '2',
    });
    const a = await startServiceProcess(env('a'), 'free', { capture: true });
    const b = await startServiceProcess(env('b'), 'free', { capture: true, key: a.key });
    const instances = { a, b };
    try {
      const api = (base: string, path: string, init: RequestInit = {}) =>
        fetch(`${base}${path}`, {
          ...init,
          headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' },
        });
      const start = async (base: string, scanUrl = url) => {
        const res = await api(base, '/api/scans', { method: 'POST', body: JSON.stringify({ url: scanUrl }) });
        expect(res.status).toBe(202);
        return ((await res.json()) as { id: string }).id;
      };
      const statusOf = async (base: string, id: string) =>
        ((await (await api(base, `/api/scans/${id}`)).json()) as { status: string }).status;

      // The first scan is slow (the clone takes seconds): whichever instance took it is killed.
      const slow = await start(a.base);
      let holder: 'a' | 'b' | undefined;
      await until(() => {
        holder = (['a', 'b'] as const).find((n) => instances[n].output().includes(`"scan":"${slow}"`));
        return holder !== undefined;
      }, 20_000);
      expect(holder).toBeDefined();
      const killed = instances[holder as 'a' | 'b'];
      const survivor = holder === 'a' ? b : a;
      await until(() => git.requests.some((r) => r.path.endsWith('/git-upload-pack')), 10_000);
      await killed.kill('SIGKILL');

      // Three more, started on the survivor while the killed instance's lock runs out.
      const more = [
        await start(survivor.base, smallUrl),
        await start(survivor.base, smallUrl),
        await start(survivor.base, smallUrl),
      ];
      for (const id of [slow, ...more]) {
        let status = 'queued';
        for (let i = 0; i < 240 && (status === 'queued' || status === 'running'); i++) {
          await new Promise((r) => setTimeout(r, 250));
          status = await statusOf(survivor.base, id);
        }
        expect(status).toBe('done');
      }
      // Each ran once, the killed one's twice (attempt 2): never two runs at once, none lost.
      expect(await db.storage.scans.listUnheldScanIds(new Date(), 10)).toEqual([]);
      const survivorLog = survivor.output();
      expect(survivorLog).toContain(`"scan":"${slow}","attempt":2`);
      for (const id of more) expect(survivorLog).toContain(`"scan":"${id}","attempt":1`);
      expect(survivorLog.match(/"msg":"scan finished"/g)?.length).toBe(4);
      expect(survivorLog).not.toContain(SECRET);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});

describe('svc worker', () => {
  it('runs a queued scan without serving HTTP, and stops cleanly on SIGTERM', async () => {
    const fast = await GitHttpServer.start();
    const repo = new TestRepo();
    repo.commitFiles({ 'deploy.env': `AWS_ACCESS_KEY_ID=${SECRET}\n` }, 'deploy');
    const smallUrl = fast.publish(repo.dir, 'octo', 'small');
    repo.cleanup();
    const databaseUrl = `sqlite:${join(dir, 'worker.db')}`;
    const storage = await openStorage(databaseUrl);
    try {
      const user = await storage.accounts.createUser({ email: 'worker@example.test' });
      const viewer = { userId: user.id, teamId: null };
      const { id } = await storage.scans.createScan({ ...viewer, url: smallUrl, at: new Date() });
      const worker = spawn(process.execPath, [CLI, 'worker'], {
        env: {
          ...process.env,
          SVC_DATABASE_URL: databaseUrl,
          SVC_SCAN_HOSTS: fast.origin,
          SVC_SCAN_WORK_DIR: join(dir, 'worker-work'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      worker.stdout.on('data', (chunk) => {
        output += chunk;
      });
      worker.stderr.on('data', (chunk) => {
        output += chunk;
      });
      const exited = new Promise<number | null>((resolve) => worker.on('exit', resolve));
      let scan = await storage.scans.findScan(id, viewer);
      for (let i = 0; i < 300 && (scan?.status === 'queued' || scan?.status === 'running'); i++) {
        await new Promise((r) => setTimeout(r, 100));
        scan = await storage.scans.findScan(id, viewer);
      }
      expect(scan).toMatchObject({ status: 'done', error: null });
      expect((scan?.findings as { maskedValue: string }[]).map((f) => f.maskedValue)).toEqual([
        `AKIA${'*'.repeat(16)}`,
      ]);
      worker.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(output).toContain('scan worker started');
      expect(output).not.toContain(SECRET);
    } finally {
      await storage.close();
      await fast.stop();
    }
  });
});
