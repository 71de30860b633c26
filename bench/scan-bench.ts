/**
 * `npm run bench`: the scanner against `git log -p -U0 --all --cc` on one large synthetic history,
 * side by side in one run (issue 2's target: no slower than that git log, under 300 MB).
 *
 * SVC_BENCH_COMMITS / SVC_BENCH_BYTES_PER_COMMIT / SVC_BENCH_RUNS change the size and repetitions.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Measurement, measure, median } from './measure.js';
import { buildSyntheticHistory } from './synthetic-history.js';

const root = join(import.meta.dirname, '..');
const commits = Number(process.env.SVC_BENCH_COMMITS ?? 24_000);
const bytesPerCommit = Number(process.env.SVC_BENCH_BYTES_PER_COMMIT ?? 15_500);
const runs = Number(process.env.SVC_BENCH_RUNS ?? 3);
const workDir = join(root, '.bench');
const repo = join(workDir, `history-${commits}-${bytesPerCommit}`);
const stamp = join(repo, '.svc-bench.json');

async function ensureRepository(): Promise<{ commits: number; secretCommits: number; addedBytes: number }> {
  if (existsSync(stamp)) return JSON.parse(readFileSync(stamp, 'utf8'));
  rmSync(repo, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  const started = Date.now();
  const built = await buildSyntheticHistory(repo, {
    commits,
    bytesPerCommit,
    secretEvery: 97,
    mergeEvery: 50,
  });
  console.log(`built ${repo} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  writeFileSync(stamp, JSON.stringify(built));
  return built;
}

function row(name: string, ms: Measurement[]): string {
  const wall = median(ms.map((m) => m.wallSeconds)).toFixed(2);
  const tree = median(ms.map((m) => m.peakTreeMiB)).toFixed(0);
  const largest = median(ms.map((m) => m.peakLargestMiB)).toFixed(0);
  const own = median(ms.map((m) => m.peakRootMiB)).toFixed(0);
  return `${name.padEnd(44)} ${wall.padStart(7)} s ${own.padStart(9)} MiB ${largest.padStart(11)} MiB ${tree.padStart(9)} MiB`;
}

const history = await ensureRepository();
const packBytes = execFileSync('du', ['-sb', join(repo, '.git')], { encoding: 'utf8' }).split('\t')[0];
console.log(
  `repository: ${history.commits} commits, ${(history.addedBytes / 1e6).toFixed(0)} MB of added lines, ` +
    `${history.secretCommits} commits adding a credential, .git ${(Number(packBytes) / 1e6).toFixed(0)} MB`,
);

const cli = join(root, 'dist', 'cli', 'main.js');
const single = join(root, 'bench', 'scan-once.mjs');
// Peak resident memory is sampled every 20 ms over the whole process tree: the command's own
// process, the largest single process (what /usr/bin/time reports), and the sum of all of them.
const cases: [string, string, string[]][] = [
  ['git log -p -U0 --all --cc > /dev/null', 'git', ['-C', repo, 'log', '-p', '-U0', '--all', '--cc']],
  [
    'svc scan --no-verify --format json',
    process.execPath,
    [cli, 'scan', repo, '--no-verify', '--format', 'json'],
  ],
  ['svc scan, one git process (for comparison)', process.execPath, [single, repo, '1']],
];
const results = new Map<string, Measurement[]>(cases.map(([name]) => [name, []]));
for (let i = 0; i < runs; i++) {
  // Interleaved, so page-cache warmth and machine noise fall on every case alike.
  for (const [name, command, args] of cases) {
    const m = await measure(command, args);
    if (m.code !== 0 && m.code !== 1) throw new Error(`${name} exited with ${m.code}`);
    results.get(name)!.push(m);
  }
}

// The scan exits 1 (it finds the planted credentials), so read its report without treating that as an error.
const scanned = spawnSync(process.execPath, [cli, 'scan', repo, '--no-verify', '--format', 'json'], {
  encoding: 'utf8',
  maxBuffer: 1 << 28,
});
const report = JSON.parse(scanned.stdout || '{}');
console.log(`\nmedian of ${runs} runs, machine: ${execFileSync('nproc', { encoding: 'utf8' }).trim()} cores`);
console.log(
  `${'command'.padEnd(44)} ${'wall'.padStart(9)} ${'own process'.padStart(13)} ${'largest proc.'.padStart(15)} ${'all procs'.padStart(13)}`,
);
for (const [name] of cases) console.log(row(name, results.get(name)!));
console.log(
  `\nscan found ${report.summary?.total ?? '?'} findings in ${report.commitsScanned ?? '?'} commits ` +
    `(the builder added ${history.secretCommits} credentials)`,
);
