/**
 * `npm run bench:app`: the GitHub application's latency, webhook to check run, for one-commit
 * pushes into a large repository (SVC_BENCH_COMMITS, default 10,000), beside a full scan of the same
 * history. All on loopback: the real service process (SQLite, the embedded queue), a real git server
 * (git http-backend) that takes only installation tokens the fake GitHub API issued, and that
 * fake API receiving the check runs. Each of SVC_BENCH_PUSHES (default 5) pushes adds one commit (a
 * small edit of a long file; one of them plants a secret in code, so the `failure` path is measured
 * too) and delivers a signed `push` event; the bench times the webhook's answer and the time from
 * sending it until the fake API holds a completed check run on the pushed commit. The baseline is a
 * full `git clone --bare` from the same server plus `svc scan --no-verify --format json` of it. The
 * application is incremental when its time does not grow with the history: compare two sizes.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { signatureOf } from '../src/services/app-a/signature.js';
import { FakeCodehostA } from '../test/helpers/fake-codehost-a.js';
import { fakeCodehostToken } from '../test/helpers/fake-secrets.js';
import { GitHttpServer } from '../test/helpers/git-http-server.js';
import { startServiceProcess } from '../test/helpers/service-process.js';
import { CLI } from '../test/helpers/svc-cli.js';
import { measure, median } from './measure.js';
import { buildSyntheticHistory } from './synthetic-history.js';

const COMMITS = Number(process.env.SVC_BENCH_COMMITS ?? 10_000);
const PUSHES = Number(process.env.SVC_BENCH_PUSHES ?? 5);
/** Full scans timed for the baseline. */
const FULL_SCANS = Number(process.env.SVC_BENCH_FULL_SCANS ?? 2);
/** A push whose check run is not completed by then fails the bench. */
const CHECK_RUN_TIMEOUT_MS = 60_000;
/** The contract: the webhook answers within 1 s. */
const WEBHOOK_LIMIT_MS = 1000;
/** The push that plants a secret in code (its check run must fail). */
const SECRET_PUSH = Math.floor(PUSHES / 2);

const APP_ID = '4242';
const SECRET = 'whsec-bench-0123456789abcdef';
const INSTALLATION = 77;
const OWNER = 'acme';
const NAME = 'history';
const FULL_NAME = `${OWNER}/${NAME}`;
const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

interface PushRow {
  head: string;
  planted: boolean;
  webhookMs: number;
  checkRunMs: number;
  conclusion: string;
  title: string;
  scan: string;
}

interface Reported {
  commitsFetched?: number;
  blobsFetched?: number;
  fetchMs?: number;
  ms?: number;
  annotations?: number;
}

const started = Date.now();
const dir = mkdtempSync(join(tmpdir(), 'svc-app-bench-'));
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
let api: FakeCodehostA | undefined;
let git: GitHttpServer | undefined;
let service: Awaited<ReturnType<typeof startServiceProcess>> | undefined;

try {
  api = await FakeCodehostA.start({ appId: APP_ID, publicKey });
  const fake = api;
  // The code host's git work runs elsewhere in real life: here it must not compete with the service.
  git = await GitHttpServer.start({
    niceness: 19,
    authorize: (header) => {
      const basic = /^Basic (.+)$/.exec(header ?? '')?.[1];
      if (basic === undefined) return false;
      const [user, token] = Buffer.from(basic, 'base64').toString('utf8').split(':');
      return user === 'x-access-token' && fake.isValidToken(token ?? '');
    },
  });

  const source = join(dir, 'source');
  const building = Date.now();
  const history = await buildSyntheticHistory(source, {
    commits: COMMITS,
    bytesPerCommit: 600,
    secretEvery: 40,
    mergeEvery: 50,
  });
  git.publish(source, OWNER, NAME);
  const served = git.pathOf(OWNER, NAME);
  const buildSeconds = (Date.now() - building) / 1000;

  service = await startServiceProcess(
    {
      SVC_DATABASE_URL: `sqlite:${join(dir, 'svc.db')}`,
      SVC_SCAN_WORK_DIR: join(dir, 'work'),
      SVC_APP_A_ID: APP_ID,
      // PKCS#1, as the platform hands it out.
      SVC_APP_A_PRIVATE_KEY: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
      SVC_APP_A_WEBHOOK_SECRET: SECRET,
      SVC_CODEHOST_API_URL: api.url,
      SVC_CODEHOST_GIT_URL: git.origin,
      // Credential checks of the other providers stay on loopback too (the fake answers 404).
      SVC_PAYMENT_API_URL: api.url,
      SVC_CHAT_API_URL: api.url,
    },
    'paid',
    { capture: true },
  );
  const svc = service;
  let deliveries = 0;
  const deliver = async (event: string, payload: unknown) => {
    const body = JSON.stringify(payload);
    const sent = performance.now();
    const response = await fetch(`${svc.base}/api/apps/codehost-a/webhook`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-codehosta-event': event,
        'x-codehosta-delivery': `bench-${started}-${++deliveries}`,
        'x-hub-signature-256': signatureOf(SECRET, body),
      },
    });
    const answer = (await response.json()) as { status?: string; scan?: string; error?: string };
    return { sent, ms: performance.now() - sent, status: response.status, answer };
  };

  const installed = await deliver('installation', {
    action: 'created',
    installation: { id: INSTALLATION },
    repositories: [{ full_name: FULL_NAME }],
  });
  if (installed.status !== 202 || installed.answer.status !== 'recorded') {
    throw new Error(
      `the installation event answered ${installed.status} ${JSON.stringify(installed.answer)}`,
    );
  }

  const rows: PushRow[] = [];
  for (let i = 0; i < PUSHES; i++) {
    const planted = i === SECRET_PUSH;
    const before = gitIn(source, 'rev-parse', 'refs/heads/main');
    const after = commitEdit(source, i, planted);
    execFileSync('git', ['-C', source, 'push', '--quiet', served, 'main:refs/heads/main'], { env: GIT_ENV });

    const hook = await deliver('push', {
      ref: 'refs/heads/main',
      before,
      after,
      repository: { full_name: FULL_NAME, default_branch: 'main' },
      installation: { id: INSTALLATION },
    });
    if (hook.status !== 202 || hook.answer.status !== 'queued' || hook.answer.scan === undefined) {
      throw new Error(`push ${i + 1}: the webhook answered ${hook.status} ${JSON.stringify(hook.answer)}`);
    }
    const run = await completedCheckRun(api, after, hook.sent);
    if (run === undefined) {
      throw new Error(
        `push ${i + 1} (${after.slice(0, 12)}): no completed check run within ${CHECK_RUN_TIMEOUT_MS / 1000} s of its webhook`,
      );
    }
    rows.push({
      head: after,
      planted,
      webhookMs: hook.ms,
      checkRunMs: run.ms,
      conclusion: run.conclusion,
      title: run.title,
      scan: hook.answer.scan,
    });
  }

  // The service writes its account of a scan just after the check run completes: give the last one
  // a moment (outside every measured time).
  const reported = reportedScans(svc.output());
  for (let waited = 0; rows.some((r) => !reported.has(r.scan)) && waited < 5000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const [scan, entry] of reportedScans(svc.output())) reported.set(scan, entry);
  }
  await svc.stop();

  // The baseline: what scanning the whole history costs, from the same server.
  const token = await installationToken(api, privateKey);
  const fulls: { cloneSeconds: number; scanSeconds: number; peakMiB: number; code: number | null }[] = [];
  for (let k = 0; k < FULL_SCANS; k++) {
    const clone = join(dir, `full-${k}.git`);
    const cloned = await measure('git', [
      '-c',
      `http.extraHeader=Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`,
      'clone',
      '--bare',
      '--quiet',
      git.urlOf(OWNER, NAME),
      clone,
    ]);
    if (cloned.code !== 0) throw new Error(`the full clone exited with ${cloned.code}`);
    const scanned = await measure(process.execPath, [CLI, 'scan', clone, '--no-verify', '--format', 'json']);
    // 1: the history's planted secrets fail the scan, as they should; 2 or 3 would be no real baseline.
    if (scanned.code !== 0 && scanned.code !== 1)
      throw new Error(`the full scan exited with ${scanned.code}`);
    fulls.push({
      cloneSeconds: cloned.wallSeconds,
      scanSeconds: scanned.wallSeconds,
      peakMiB: scanned.peakTreeMiB,
      code: scanned.code,
    });
    rmSync(clone, { recursive: true, force: true });
  }

  const packMiB = Number(execFileSync('du', ['-sk', served], { encoding: 'utf8' }).split('\t')[0]) / 1024;
  const total = gitIn(served, 'rev-list', '--count', 'refs/heads/main');
  const ms = (n: number) => `${Math.round(n)}`.padStart(6);
  const checkRunTimes = rows.map((r) => r.checkRunMs);
  const webhookTimes = rows.map((r) => r.webhookMs);
  const fullSeconds = median(fulls.map((f) => f.cloneSeconds + f.scanSeconds));
  const lines = [
    `repository: ${total} commits on main after the pushes (${history.commits} built in ${buildSeconds.toFixed(0)} s, ${history.secretCommits} with a secret), ` +
      `${packMiB.toFixed(1)} MiB on the server; ${execFileSync('nproc', { encoding: 'utf8' }).trim()} cores, ` +
      `load ${execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ').slice(0, 3).join(' ')}`,
    '',
    'push  commit        webhook ms  →check run ms  conclusion  commits  blobs  fetch ms  job ms  title',
    ...rows.map((r, i) => {
      const log = reported.get(r.scan);
      return (
        `${String(i + 1).padStart(4)}  ${r.head.slice(0, 12)}  ${ms(r.webhookMs).padStart(10)}  ${ms(r.checkRunMs).padStart(13)}  ` +
        `${(r.conclusion + (r.planted ? '*' : '')).padEnd(10)}  ${String(log?.commitsFetched ?? '?').padStart(7)}  ` +
        `${String(log?.blobsFetched ?? '?').padStart(5)}  ${String(log?.fetchMs ?? '?').padStart(8)}  ` +
        `${String(log?.ms ?? '?').padStart(6)}  ${r.title}`
      );
    }),
    `${'median'.padEnd(20)}${ms(median(webhookTimes)).padStart(10)}  ${ms(median(checkRunTimes)).padStart(13)}`,
    `${'max'.padEnd(20)}${ms(Math.max(...webhookTimes)).padStart(10)}  ${ms(Math.max(...checkRunTimes)).padStart(13)}`,
    `(* the push that planted a secret in code; commits, blobs, fetch ms, job ms: the service's log line` +
      ` "application scan reported": commitsFetched, blobsFetched, fetchMs, ms: the whole job)`,
    '',
    `full scan of the same history (git clone --bare from the server + svc scan --no-verify --format json):`,
    ...fulls.map(
      (f, k) =>
        `  run ${k + 1}: clone ${f.cloneSeconds.toFixed(1)} s + scan ${f.scanSeconds.toFixed(1)} s = ` +
        `${(f.cloneSeconds + f.scanSeconds).toFixed(1)} s (exit ${f.code}, peak ${f.peakMiB.toFixed(0)} MiB)`,
    ),
    `ratio: full scan ${fullSeconds.toFixed(1)} s / median webhook→check run ${(median(checkRunTimes) / 1000).toFixed(2)} s = ` +
      `${(fullSeconds / (median(checkRunTimes) / 1000)).toFixed(1)}×`,
  ];
  console.log(lines.join('\n'));

  const problems = [
    ...rows
      .filter((r) => r.webhookMs > WEBHOOK_LIMIT_MS)
      .map(
        (r) => `the webhook of ${r.head.slice(0, 12)} answered in ${Math.round(r.webhookMs)} ms (over 1 s)`,
      ),
    ...rows
      .filter((r) => r.conclusion !== (r.planted ? 'failure' : 'success'))
      .map(
        (r) =>
          `the check run of ${r.head.slice(0, 12)} concluded ${r.conclusion}, expected ${r.planted ? 'failure' : 'success'}`,
      ),
  ];
  if (problems.length > 0) {
    console.error(`\nbench:app FAILED:\n  ${problems.join('\n  ')}`);
    process.exitCode = 1;
  }
  console.log(`\n(bench took ${((Date.now() - started) / 1000).toFixed(0)} s)`);
} catch (e) {
  console.error(`bench:app FAILED: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
} finally {
  await service?.stop();
  await git?.stop();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
}

function gitIn(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-C', repo, ...args], {
    encoding: 'utf8',
    env: GIT_ENV,
    maxBuffer: 1 << 30,
  }).trim();
}

/**
 * Commits one small edit of a long file on main, with plumbing (the synthetic source has no work
 * tree): three lines replace one in the middle of the i-th longest file under src/, plus a planted
 * token in code when `planted`. Returns the new commit.
 */
function commitEdit(repo: string, i: number, planted: boolean): string {
  const files = gitIn(repo, 'ls-tree', '-r', '-l', 'refs/heads/main')
    .split('\n')
    .map((line) => /^\d+ blob [0-9a-f]+\s+(\d+)\t(.+)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && m[2]!.endsWith('.js'))
    .map((m) => ({ size: Number(m[1]), path: m[2]! }))
    .sort((a, b) => b.size - a.size);
  const path = files[i % files.length]!.path;
  const lines = gitIn(repo, 'cat-file', 'blob', `refs/heads/main:${path}`).split('\n');
  const added = [
    `  const benchValue${i} = render(${i}, 'alpha beta');`,
    planted ? `  const token = "${fakeCodehostToken(7100 + i)}";` : `  // bench edit ${i}: render the value`,
    `  if (benchValue${i}.count > ${i}) { return benchValue${i}.map((x) => x.index); }`,
  ];
  lines.splice(Math.floor(lines.length / 2), 1, ...added);
  const blob = execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], {
    input: `${lines.join('\n')}\n`,
    encoding: 'utf8',
    env: GIT_ENV,
  }).trim();
  const env = { ...GIT_ENV, GIT_INDEX_FILE: join(dir, 'bench.index') };
  const inIndex = (...args: string[]) =>
    execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env, maxBuffer: 1 << 30 }).trim();
  inIndex('read-tree', 'refs/heads/main');
  inIndex('update-index', '--cacheinfo', `100644,${blob},${path}`);
  const tree = inIndex('write-tree');
  const commit = execFileSync(
    'git',
    ['-C', repo, 'commit-tree', tree, '-p', 'refs/heads/main', '-m', `bench push ${i + 1}`],
    {
      encoding: 'utf8',
      env: {
        ...GIT_ENV,
        GIT_AUTHOR_NAME: 'Bench Dev',
        GIT_AUTHOR_EMAIL: 'bench@example.test',
        GIT_COMMITTER_NAME: 'Bench Dev',
        GIT_COMMITTER_EMAIL: 'bench@example.test',
      },
    },
  ).trim();
  gitIn(repo, 'update-ref', 'refs/heads/main', commit);
  return commit;
}

/** The service's log lines `application scan reported`, by scan id. */
function reportedScans(output: string): Map<string, Reported> {
  const reported = new Map<string, Reported>();
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as Reported & { msg?: string; scan?: string };
      if (entry.msg === 'application scan reported' && entry.scan !== undefined)
        reported.set(entry.scan, entry);
    } catch {
      // not a log line (or one cut short)
    }
  }
  return reported;
}

/** Polls the fake API every 10 ms for a completed check run on `sha`; undefined after the timeout. */
async function completedCheckRun(
  fake: FakeCodehostA,
  sha: string,
  since: number,
): Promise<{ ms: number; conclusion: string; title: string } | undefined> {
  while (performance.now() - since < CHECK_RUN_TIMEOUT_MS) {
    const run = fake.checkRuns().find((r) => r.head_sha === sha && r.status === 'completed');
    if (run !== undefined) {
      return {
        ms: performance.now() - since,
        conclusion: run.conclusion ?? '',
        title: run.output.title ?? '',
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return undefined;
}

/** An installation token from the fake API, exchanged for an app JWT as the service does. */
async function installationToken(fake: FakeCodehostA, key: KeyObject): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(APP_ID)
    .setIssuedAt(now)
    .setExpirationTime(now + 540)
    .sign(key);
  const response = await fetch(`${fake.url}/app/installations/${INSTALLATION}/access_tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${jwt}` },
  });
  if (response.status !== 201) throw new Error(`the token exchange answered ${response.status}`);
  return ((await response.json()) as { token: string }).token;
}
