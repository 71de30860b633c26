/**
 * `npm run bench:scale` (issue 31): the scan on histories of growing length, each beside git's own
 * floor, in one run: memory of all the scan's processes must not grow with the history (at most
 * 300 MB), and its time should stay near the floor's.
 *
 * The floor is `git cat-file --batch` of every blob of the history, in the pack's order, one core:
 * what any scanner that reads every version of every file pays git at least.
 *
 * SVC_BENCH_SCALE: synthetic sizes in commits (default 40000,200000); each is built once into
 * .bench/ (the build time is printed) with small files in directories of 100, so that a million
 * commits stay practical to make: SVC_BENCH_SCALE_BYTES bytes of added lines a commit (default
 * 1500). SVC_BENCH_REPO: one or more real repositories, separated by `:`, measured in the same run.
 * SVC_BENCH_RUNS: runs of each (default 1; the time is the median). SVC_BENCH_CLI: the CLI to measure
 * (default: this build's cli/main.js; an executable such as dist/svc-linux-x64 runs as it is).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { floorCommand } from './floor.js';
import { type Measurement, measure, measureAll, median } from './measure.js';
import { cachedSyntheticHistory } from './synthetic-history.js';

const root = join(import.meta.dirname, '..');
const workDir = join(root, '.bench');
const sizes = (process.env.SVC_BENCH_SCALE ?? '40000,200000')
  .split(',')
  .filter((s) => s.trim() !== '')
  .map(Number);
const bytesPerCommit = Number(process.env.SVC_BENCH_SCALE_BYTES ?? 1500);
const runs = Number(process.env.SVC_BENCH_RUNS ?? 1);
const realRepos = (process.env.SVC_BENCH_REPO ?? '').split(':').filter((r) => r !== '');
/**
 * SVC_BENCH_CLI: another build's `cli/main.js` (the code before a change, say), run by this Node, or
 * an executable run as it is (the single executable, dist/svc-linux-x64: what CI runs).
 */
const cli = process.env.SVC_BENCH_CLI ?? join(root, 'dist', 'cli', 'main.js');
const [cliCommand, ...cliArgs] = cli.endsWith('.js') ? [process.execPath, cli] : [cli];
/** Histories this long or longer are left as fast-import wrote them (no repack). */
const REPACK_BELOW = 500_000;

interface History {
  name: string;
  repo: string;
}

async function synthetic(commits: number): Promise<History> {
  const repo = join(workDir, `history-scale-${commits}-${bytesPerCommit}`);
  await cachedSyntheticHistory(repo, {
    commits,
    bytesPerCommit,
    secretEvery: 97,
    mergeEvery: 50,
    filesPerDirectory: 100,
    // A million commits are measured on fast-import's own pack (synthetic-history.ts).
    repack: commits < REPACK_BELOW,
  });
  const name = `synthetic ${commits.toLocaleString('en')}${commits < REPACK_BELOW ? '' : ' (fast-import pack)'}`;
  return { name, repo };
}

const mib = (m: Measurement[], key: keyof Measurement) => median(m.map((x) => Number(x[key]))).toFixed(0);

mkdirSync(workDir, { recursive: true });
const histories: History[] = [];
for (const size of sizes) histories.push(await synthetic(size));
for (const repo of realRepos) histories.push({ name: basename(repo.replace(/\/repo$/, '')), repo });

const rows: string[] = [];
const load: number[] = [];
/** The history column fits the longest name ("synthetic 1,000,000 (fast-import pack)"). */
const nameWidth = Math.max(22, ...histories.map((h) => h.name.length));
for (const history of histories) {
  const commits = Number(
    execFileSync('git', ['-C', history.repo, 'rev-list', '--all', '--count'], { encoding: 'utf8' }).trim(),
  );
  const blobs = floorCommand(history.repo, workDir, history.name);
  const floor: Measurement[] = [];
  const scan: Measurement[] = [];
  for (let i = 0; i < runs; i++) {
    load.push(loadavg()[0]!);
    floor.push(await measure(blobs.command, blobs.args));
    scan.push(
      await measureAll(history.name, cliCommand, [
        ...cliArgs,
        'scan',
        history.repo,
        '--no-verify',
        '--format',
        'json',
      ]),
    );
  }
  const floorSeconds = median(floor.map((m) => m.wallSeconds));
  const scanSeconds = median(scan.map((m) => m.wallSeconds));
  rows.push(
    [
      history.name.padEnd(nameWidth),
      commits.toLocaleString('en').padStart(9),
      `${(blobs.bytes / 1e9).toFixed(2)} GB`.padStart(9),
      `${floorSeconds.toFixed(2)} s`.padStart(9),
      `${scanSeconds.toFixed(2)} s`.padStart(9),
      `${(scanSeconds / floorSeconds).toFixed(2)}x`.padStart(6),
      `${mib(scan, 'peakTreeMiB')} MiB`.padStart(9),
      `${mib(scan, 'peakTreePssMiB')} MiB`.padStart(9),
      `${mib(scan, 'peakTreeAnonMiB')} MiB`.padStart(9),
      `${mib(scan, 'peakRootMiB')} MiB`.padStart(9),
      `${mib(floor, 'peakTreeMiB')} MiB`.padStart(9),
    ].join(' '),
  );
  console.log(rows.at(-1));
}

console.log(
  `\n${runs} run(s) each, machine: ${execFileSync('nproc', { encoding: 'utf8' }).trim()} cores, 1-minute load ` +
    `average ${Math.min(...load).toFixed(1)}-${Math.max(...load).toFixed(1)}; scan wall from a run without the ` +
    'memory sampler, memory from a sampled run; floor: `git cat-file --batch` of every blob, pack order. ' +
    'Memory: "all procs" sums every process\'s resident memory (a page two processes map counts twice), ' +
    '"PSS" counts a shared page once, "anon" leaves out the file pages mapped (the pack and its index: ' +
    'clean page cache the kernel can take back); "node" is the scan\'s own process.',
);
console.log(
  [
    'history'.padEnd(nameWidth),
    'commits'.padStart(9),
    'blobs'.padStart(9),
    'floor'.padStart(9),
    'svc scan'.padStart(9),
    'ratio'.padStart(6),
    'all procs'.padStart(9),
    'all, PSS'.padStart(9),
    'all, anon'.padStart(9),
    'node'.padStart(9),
    'floor mem'.padStart(9),
  ].join(' '),
);
for (const row of rows) console.log(row);
