import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fakeCloudKeyId,
  fakeCodehostToken,
  fakeGenericValue,
  fakePaymentKey,
} from '../../../test/helpers/fake-secrets.js';
import { GitHttpServer } from '../../../test/helpers/git-http-server.js';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { CONTRACT_FINDING_KEYS } from '../../../test/helpers/scan-results.js';
import { startTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { databaseScanQueue, type ScanQueue } from '../../services/scan-queue.js';
import type { ScanWorker, ScanWorkerOptions } from '../../services/scan-worker.js';

type ScanBody = {
  id: string;
  url: string;
  status: string;
  progress: { done: number; total: number };
  startedAt: string | null;
  finishedAt: string | null;
  error: string | null;
  summary: Record<string, unknown> | null;
  findings: Record<string, unknown>[] | null;
};

const SECRETS = {
  cloud: fakeCloudKeyId(41),
  codehost: fakeCodehostToken(42),
  payment: fakePaymentKey(43),
  generic: fakeGenericValue(44),
};

let git: GitHttpServer;
let stalled: GitHttpServer;
/** A git host that answers every request with a redirect to another host (which must not be followed). */
let redirecting: Server;
let redirectingOrigin: string;
let t: TestApp;
let ada: string;
let bob: string;
let eve: string;
let repo: TestRepo;
let secretsUrl: string;
let commits: number;
let nextIp = 1;
/** Each test posts from its own address, so the 5-a-minute limit counts only its own starts. */
const freshIp = () => `198.51.100.${nextIp++}`;

beforeAll(async () => {
  [git, stalled] = await Promise.all([
    GitHttpServer.start({ privateOwners: ['private'] }),
    GitHttpServer.start({ stall: true }),
  ]);
  redirecting = createServer((req, res) => {
    res.writeHead(301, { location: `${git.origin}${req.url ?? '/'}` }).end();
  });
  await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
  redirectingOrigin = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
  t = await startTestApp({
    env: {
      SVC_SCAN_HOSTS: `github.com,${git.origin},${stalled.origin},${redirectingOrigin}`,
      SVC_SCAN_LEASE_S: '30',
    },
    // The tests poll scans every 50 ms from one address: the API's 300 a minute would cut them off.
    // The scan-start limit under test is the default 5.
    rateLimits: { api: 1_000_000 },
  });
  ada = await t.userWithKey('ada@example.test', 'free', { name: 'core', plan: 'free' });
  bob = await t.userWithKey('bob@example.test', 'free', { name: 'core', plan: 'free' });
  eve = await t.userWithKey('eve@example.test');

  // Secrets planted in history: some removed again later, one in a test file, one on another branch.
  repo = new TestRepo();
  repo.commitFiles({ 'README.md': '# demo\n' }, 'initial');
  repo.commitFiles(
    { 'config/deploy.env': `REGION=eu\nAWS_ACCESS_KEY_ID=${SECRETS.cloud}\n` },
    'deploy settings',
  );
  repo.commitFiles({ 'src/app.js': `const token = "${SECRETS.codehost}";\n` }, 'client');
  repo.remove('config/deploy.env');
  repo.commit('remove the key');
  repo.commitFiles({ 'test/fixtures/pay.txt': `key ${SECRETS.payment}\n` }, 'fixture');
  for (let i = 0; i < 20; i++) repo.commitFiles({ 'src/n.txt': `${i}\n` }, `n ${i}`);
  repo.git('checkout', '-q', '-b', 'feature');
  repo.commitFiles({ 'src/settings.py': `api_secret = "${SECRETS.generic}"\n` }, 'feature settings');
  repo.git('checkout', '-q', 'main');
  commits = Number(repo.git('rev-list', '--all', '--count'));
  secretsUrl = git.publish(repo.dir, 'octo', 'secrets');
});

afterAll(async () => {
  await t?.cleanup();
  await Promise.all([git?.stop(), stalled?.stop()]);
  await new Promise((resolve) => redirecting?.close(resolve));
  repo?.cleanup();
});

function start(key: string, url: string, ip = freshIp()) {
  return t.request('/api/scans', {
    key,
    ip,
    body: JSON.stringify({ url }),
    headers: { 'content-type': 'application/json' },
  });
}

async function getScan(key: string, id: string): Promise<{ status: number; body: ScanBody }> {
  const response = await t.request(`/api/scans/${id}`, { key });
  return { status: response.status, body: (await response.json()) as ScanBody };
}

/** Polls until the scan leaves queued/running (the test's own timeout bounds the wait). */
async function settled(key: string, id: string): Promise<ScanBody> {
  for (;;) {
    const { body } = await getScan(key, id);
    if (body.status !== 'queued' && body.status !== 'running') return body;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function withWorker<T>(overrides: Partial<ScanWorkerOptions>, run: (worker: ScanWorker) => Promise<T>) {
  const worker = await t.services.startScanWorker({ pollMs: 50, sizeCheckMs: 20, ...overrides });
  try {
    return await run(worker);
  } finally {
    await worker.stop();
  }
}

const workDir = () => t.services.config.scans.workDir;

/** Processes whose command line names `text` (a git clone or its transfer helper). */
function processesNaming(text: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'latin1').includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('POST /api/scans', () => {
  it('answers 202 {id, status: queued}, and 401 without a key', async () => {
    const response = await start(ada, secretsUrl);
    expect(response.status).toBe(202);
    const body = (await response.json()) as { id: string; status: string };
    expect(Object.keys(body)).toEqual(['id', 'status']);
    expect(body.status).toBe('queued');
    expect((await start('', secretsUrl)).status).toBe(401);
  });

  it('allows five starts a minute per IP on the real route, then 429 with Retry-After', async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 6; i++) {
      last = await start(ada, secretsUrl, ip);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await last!.json()) as { error: string }).error).toMatch(/rate limit/);
    // Another address is not affected.
    expect((await start(ada, secretsUrl)).status).toBe(202);
  });

  it.each([
    ['ssh', 'ssh://git@github.com/octo/secrets.git', /only https/],
    ['scp-style', 'git@github.com:octo/secrets.git', /only https/],
    ['file', 'file:///etc', /only https/],
    ['another host', 'https://bitbucket.org/octo/secrets', /host is not allowed/],
    ['loopback not allowed', 'http://127.0.0.1:9/octo/secrets.git', /host is not allowed/],
    ['credentials', 'https://ada:hunter2@github.com/octo/secrets', /credentials/],
    ['a query', 'https://github.com/octo/secrets?x=1', /query or fragment/],
    ['traversal', 'https://github.com/octo/../../etc', /OWNER\/NAME/],
    ['10 KB of URL', `https://github.com/octo/${'x'.repeat(10 * 1024)}`, /too long/],
  ])('refuses %s with 400 and the reason', async (_label, url, reason) => {
    const response = await start(ada, url);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(reason);
  });

  it('refuses a host that is not allowed without naming the hosts that are (SVC_SCAN_HOSTS may be internal)', async () => {
    for (const url of [
      'https://bitbucket.org/octo/secrets',
      'http://169.254.169.254/latest/meta-data',
      'http://169.254.169.254/octo/secrets',
      'http://127.0.0.1:9/octo/secrets.git',
      'http://localhost:3000/octo/secrets',
      'https://[::1]/octo/secrets',
    ]) {
      const response = await start(ada, url);
      expect(response.status, url).toBe(400);
      const { error } = (await response.json()) as { error: string };
      expect(error, url).toMatch(/host is not allowed|OWNER\/NAME/);
      for (const allowed of ['github.com', git.origin, stalled.origin, '127.0.0.1:', 'allowed:']) {
        expect(error, url).not.toContain(allowed);
      }
    }
  });

  it('refuses a body over 16 KiB before reading it whole', async () => {
    const body = JSON.stringify({ url: `https://github.com/o/${'x'.repeat(1024 * 1024)}` });
    const response = await t.request('/api/scans', { key: ada, ip: freshIp(), body });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: 'request body over 16 KiB' });
  });

  it('refuses a body that is not {url}', async () => {
    for (const body of ['not json', '[]', '{}', '{"url": 7}']) {
      const response = await t.request('/api/scans', { key: ada, ip: freshIp(), body });
      expect(response.status).toBe(400);
    }
  });
});

describe('a scan, run by the worker against a real git server', () => {
  it('finishes with the history findings (masked, unchecked) and its progress; no secret stored or logged', async () => {
    const { id } = (await (await start(ada, secretsUrl)).json()) as { id: string };
    const scan = await withWorker({}, () => settled(ada, id));
    expect(scan).toMatchObject({ id, url: secretsUrl, status: 'done', error: null });
    expect(scan.progress).toEqual({ done: commits, total: commits });
    expect(Date.parse(scan.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(scan.startedAt!));
    const findings = scan.findings!;
    expect(findings.map((f) => f.ruleId).sort()).toEqual([
      'cloud-access-key-id',
      'codehost-token',
      'generic-secret',
      'payment-live-key',
    ]);
    for (const f of findings) {
      expect(Object.keys(f)).toEqual(CONTRACT_FINDING_KEYS);
      expect(f.verification).toBe('unchecked');
      expect(f.maskedValue).toMatch(/^.{4}\*+$/);
    }
    expect(findings.find((f) => f.ruleId === 'cloud-access-key-id')).toMatchObject({
      path: 'config/deploy.env',
      line: 2,
      location: 'code',
      maskedValue: `${SECRETS.cloud.slice(0, 4)}${'*'.repeat(16)}`,
    });
    expect(findings.find((f) => f.ruleId === 'payment-live-key')?.location).toBe('test');
    expect(scan.summary).toEqual({
      total: 4,
      failing: 3,
      ignored: 0,
      byLocation: { code: 3, test: 1, example: 0, docs: 0 },
      active: 0,
      revoked: 0,
      unchecked: 4,
    });

    // The database (file and its write-ahead log) holds the findings, and none of the secrets.
    const dbFile = t.db.url.slice('sqlite:'.length);
    const stored = [dbFile, `${dbFile}-wal`]
      .map((f) => {
        try {
          return readFileSync(f).toString('latin1');
        } catch {
          return '';
        }
      })
      .join('');
    expect(stored).toContain(findings[0]!.fingerprint as string);
    const logs = t.logs.join('');
    expect(logs).toContain('scan finished');
    for (const secret of Object.values(SECRETS)) {
      expect(stored).not.toContain(secret);
      expect(logs).not.toContain(secret);
      expect(JSON.stringify(scan)).not.toContain(secret);
    }
    // No credential was ever sent, and the clone is gone.
    expect(git.requests.length).toBeGreaterThan(0);
    expect(git.requests.every((r) => !r.authorization)).toBe(true);
    expect(readdirSync(workDir())).toEqual([]);
  });

  it('writes progress while it runs, readable through the API', async () => {
    // Half the commits add a credential: the scanner reports clean commits after its gate pass and
    // the others one by one from git's diff, so there is a state in between to see.
    const many = new TestRepo();
    for (let i = 0; i < 200; i++) {
      const line = i % 2 === 0 ? `key_${i} = ${fakeCloudKeyId(100 + i)}` : `line ${i}`;
      many.commitFiles({ [`f${i % 7}.txt`]: `${line}\n` }, `c${i}`);
    }
    const url = git.publish(many.dir, 'octo', 'many');
    many.cleanup();
    const { id } = (await (await start(ada, url)).json()) as { id: string };
    // The real queue, with each progress write followed by a read through the API.
    const real = databaseScanQueue({
      scans: t.db.storage.scans,
      owner: `test-${randomBytes(4).toString('hex')}`,
      leaseMs: 30_000,
      now: () => new Date(),
    });
    const seen: ScanBody['progress'][] = [];
    const queue: ScanQueue = {
      ...real,
      async progress(scanId, done, total) {
        const written = await real.progress(scanId, done, total);
        // (Only this scan's: scans other tests queued, in whatever order they ran, may run first.)
        if (scanId === id) seen.push((await getScan(ada, scanId)).body.progress);
        return written;
      },
    };
    const scan = await withWorker({ queue, progressIntervalMs: 1 }, () => settled(ada, id));
    expect(scan.status).toBe('done');
    expect(scan.progress).toEqual({ done: 200, total: 200 });
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.some((p) => p.total === 200 && p.done > 0 && p.done < 200)).toBe(true);
    // Monotonic: never back.
    expect(seen.map((p) => p.done)).toEqual([...seen.map((p) => p.done)].sort((a, b) => a - b));
  });

  it('fails a repository that does not exist, or is private, as "not found or not public", sending no credential', async () => {
    const missing = (await (await start(ada, `${git.origin}/octo/nothing-here.git`)).json()) as {
      id: string;
    };
    const privateRepo = (await (await start(ada, `${git.origin}/private/repo.git`)).json()) as { id: string };
    const [a, b] = await withWorker({}, () =>
      Promise.all([settled(ada, missing.id), settled(ada, privateRepo.id)]),
    );
    for (const scan of [a!, b!]) {
      expect(scan).toMatchObject({
        status: 'failed',
        error: 'repository not found or not public',
        findings: null,
      });
    }
    expect(git.requests.some((r) => r.path.startsWith('/private/'))).toBe(true);
    expect(git.requests.every((r) => !r.authorization)).toBe(true);
    expect(readdirSync(workDir())).toEqual([]);
  });

  it("fails a clone the host redirects elsewhere with the README's words, without following it", async () => {
    const url = `${redirectingOrigin}/octo/moved-away.git`;
    const { id } = (await (await start(ada, url)).json()) as { id: string };
    const scan = await withWorker({}, () => settled(ada, id));
    expect(scan).toMatchObject({
      status: 'failed',
      error: 'repository not found or not public (redirects are not followed)',
      findings: null,
    });
    // The redirect's target (a host that serves repositories) was never asked for it.
    expect(git.requests.filter((r) => r.path.startsWith('/octo/moved-away'))).toEqual([]);
    expect(readdirSync(workDir())).toEqual([]);
  });

  it('fails a repository over the byte bound, with the reason, and leaves nothing on disk', async () => {
    const big = new TestRepo();
    big.commitFiles({ 'blob.bin': randomBytes(3 * 1024 * 1024) }, 'big');
    const url = git.publish(big.dir, 'octo', 'big');
    big.cleanup();
    const { id } = (await (await start(ada, url)).json()) as { id: string };
    const scan = await withWorker({ maxBytes: 1024 * 1024 }, () => settled(ada, id));
    expect(scan).toMatchObject({
      status: 'failed',
      error: 'repository is larger than the limit of 1048576 bytes',
    });
    expect(readdirSync(workDir())).toEqual([]);
  });

  it('fails a clone that never finishes at the time bound, and leaves nothing on disk', async () => {
    const { id } = (await (await start(ada, `${stalled.origin}/octo/slow.git`)).json()) as { id: string };
    const scan = await withWorker({ timeoutMs: 1500 }, () => settled(ada, id));
    expect(scan).toMatchObject({ status: 'failed', error: 'the scan took longer than 1.5 s' });
    expect(stalled.requests.length).toBeGreaterThan(0);
    // The clone and its transfer helper (a child of git) were killed, not left waiting on the server.
    expect(processesNaming(`${stalled.origin}/`)).toEqual([]);
    expect(readdirSync(workDir())).toEqual([]);
  });
});

describe('POST /api/scans/{id}/cancel', () => {
  const cancel = (key: string, id: string) => t.request(`/api/scans/${id}/cancel`, { key, method: 'POST' });

  it('cancels a queued scan, which no worker then runs; 409 once ended, 404 for anyone else', async () => {
    const { id } = (await (await start(ada, secretsUrl)).json()) as { id: string };
    expect((await cancel(eve, id)).status).toBe(404);
    const canceled = await cancel(bob, id); // a team mate's scan
    expect(canceled.status).toBe(200);
    expect(await canceled.json()).toEqual({ id, status: 'canceled' });
    const again = await cancel(ada, id);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toMatch(/has ended \(canceled\)/);
    expect((await cancel(ada, 'no-such-scan')).status).toBe(404);
    // A worker that runs whatever else is queued never takes the canceled scan.
    await withWorker({}, async () => {
      for (;;) {
        const { scans } = (await (await t.request('/api/scans', { key: ada })).json()) as {
          scans: { status: string }[];
        };
        if (!scans.some((scan) => scan.status === 'queued' || scan.status === 'running')) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    const { body } = await getScan(ada, id);
    expect(body).toMatchObject({ status: 'canceled', findings: null, error: null });
    expect(body.finishedAt).not.toBeNull();
    expect(body.startedAt).toBeNull(); // never claimed
  });

  it('stops a running scan: its clone is killed and removed, and the scan stays canceled', async () => {
    const { id } = (await (await start(ada, `${stalled.origin}/octo/cancel-me.git`)).json()) as {
      id: string;
    };
    await withWorker({ leaseMs: 600 }, async () => {
      for (;;) {
        if ((await getScan(ada, id)).body.status === 'running' && processesNaming('cancel-me').length > 0)
          break;
        await new Promise((r) => setTimeout(r, 25));
      }
      expect((await cancel(ada, id)).status).toBe(200);
      // The worker's next lease renewal is refused: it stops the scan.
      for (;;) {
        if (t.logs.join('').includes('scan stopped: lease lost')) break;
        await new Promise((r) => setTimeout(r, 25));
      }
    });
    expect(processesNaming('cancel-me')).toEqual([]);
    expect(readdirSync(workDir())).toEqual([]);
    expect((await getScan(ada, id)).body).toMatchObject({ status: 'canceled', error: null });
  });
});

describe('GET /api/scans', () => {
  it('shows a scan to its user and their team, and answers 404 to anyone else', async () => {
    const { id } = (await (await start(ada, secretsUrl)).json()) as { id: string };
    expect((await getScan(ada, id)).status).toBe(200);
    expect((await getScan(bob, id)).body.id).toBe(id);
    const other = await getScan(eve, id);
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ error: 'scan not found' });
    expect((await getScan(eve, 'no-such-scan')).status).toBe(404);

    const list = async (key: string) =>
      ((await (await t.request('/api/scans', { key })).json()) as { scans: ScanBody[] }).scans;
    expect((await list(bob)).map((s) => s.id)).toContain(id);
    expect(await list(eve)).toEqual([]);
    const [newest] = await list(ada);
    expect(newest).toMatchObject({ id, url: secretsUrl, status: expect.any(String) });
    expect(newest).not.toHaveProperty('findings');
  });
});
