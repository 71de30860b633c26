/**
 * `npm run bench`: the scanner against `git log -p -U0 --all --cc` on one large history, side by side
 * in one run: git log, a full scan (blob-first, and the diff path for comparison), an incremental
 * re-scan of the unchanged history, and a re-scan after one new commit (issue 10's targets: a full
 * scan in at most 0.6x git log's time, all processes under 300 MB; an unchanged re-scan under 1 s).
 *
 * SVC_BENCH_REPO=/path/to/repo.git benchmarks a real repository instead of the synthetic one (it is
 * never written to: the bench works in a `--shared` mirror of it, which borrows its objects).
 * SVC_BENCH_COMMITS / SVC_BENCH_BYTES_PER_COMMIT / SVC_BENCH_RUNS change the size and repetitions.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { floorCommand } from './floor.js';
import { type Measurement, measureAll, median } from './measure.js';
import { cachedSyntheticHistory } from './synthetic-history.js';

const root = join(import.meta.dirname, '..');
const commits = Number(process.env.SVC_BENCH_COMMITS ?? 24_000);
const bytesPerCommit = Number(process.env.SVC_BENCH_BYTES_PER_COMMIT ?? 15_500);
const runs = Number(process.env.SVC_BENCH_RUNS ?? 3);
const workDir = join(root, '.bench');
const realRepo = process.env.SVC_BENCH_REPO;

interface Source {
  repo: string;
  description: string;
}

async function synthetic(): Promise<Source> {
  // v3: mostly small edits to long files, repacked as a host's clone would be (older copies are not
  // comparable).
  const repo = join(workDir, `history-v3-${commits}-${bytesPerCommit}`);
  const built = await cachedSyntheticHistory(repo, {
    commits,
    bytesPerCommit,
    secretEvery: 97,
    mergeEvery: 50,
  });
  return {
    repo,
    description:
      `synthetic: ${built.commits} commits, ${(built.addedBytes / 1e6).toFixed(0)} MB of added lines, ` +
      `${built.secretCommits} commits adding a credential`,
  };
}

const git = (repo: string, ...args: string[]) =>
  execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();

/** A mirror that borrows the repository's objects (`--shared`): new commits go here, never there. */
function scratchMirror(source: Source): string {
  const mirror = join(workDir, 'scratch-mirror');
  rmSync(mirror, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  execFileSync('git', ['clone', '-q', '--mirror', '--shared', source.repo, mirror]);
  return mirror;
}

/** Adds one small commit on HEAD, as a developer's next push would: one new file, one line. */
function addOneCommit(repo: string): void {
  const blob = execFileSync('git', ['-C', repo, 'hash-object', '-w', '--stdin'], { input: 'one more line\n' })
    .toString()
    .trim();
  const index = join(workDir, 'bench.index');
  const env = { ...process.env, GIT_INDEX_FILE: index };
  execFileSync('git', ['-C', repo, 'read-tree', 'HEAD'], { env });
  execFileSync(
    'git',
    ['-C', repo, 'update-index', '--add', '--cacheinfo', `100644,${blob},bench-new-commit.txt`],
    {
      env,
    },
  );
  const tree = execFileSync('git', ['-C', repo, 'write-tree'], { env }).toString().trim();
  const commit = execFileSync(
    'git',
    [
      '-C',
      repo,
      '-c',
      'user.name=bench',
      '-c',
      'user.email=bench@example.test',
      'commit-tree',
      tree,
      '-p',
      'HEAD',
      '-m',
      'bench',
    ],
    { encoding: 'utf8' },
  ).trim();
  git(repo, 'update-ref', 'HEAD', commit);
  rmSync(index, { force: true });
}

function row(name: string, ms: Measurement[], baseline?: number, floorSeconds?: number): string {
  const wallValue = median(ms.map((m) => m.wallSeconds));
  const wall = wallValue.toFixed(2);
  const ratio = baseline === undefined ? '' : `${(wallValue / baseline).toFixed(2)}x`;
  const toFloor = floorSeconds === undefined ? '' : `${(wallValue / floorSeconds).toFixed(2)}x`;
  const tree = median(ms.map((m) => m.peakTreeMiB)).toFixed(0);
  const largest = median(ms.map((m) => m.peakLargestMiB)).toFixed(0);
  const own = median(ms.map((m) => m.peakRootMiB)).toFixed(0);
  const pss = median(ms.map((m) => m.peakTreePssMiB)).toFixed(0);
  return `${name.padEnd(46)} ${wall.padStart(7)} s ${ratio.padStart(6)} ${toFloor.padStart(8)} ${own.padStart(9)} MiB ${largest.padStart(11)} MiB ${tree.padStart(9)} MiB ${pss.padStart(9)} MiB`;
}

const source: Source = realRepo
  ? {
      repo: realRepo,
      description: `real repository ${realRepo}: ${git(realRepo, 'rev-list', '--all', '--count')} commits`,
    }
  : await synthetic();
const repo = scratchMirror(source);
console.log(source.description);

const cli = join(root, 'dist', 'cli', 'main.js');
// The single executable CI downloads (`npm run build:binary`): its own Node, its own bundle.
const binary = join(root, 'dist', 'svc-linux-x64');
const scanArgs = [cli, 'scan', repo, '--no-verify', '--format', 'json'];
const cache = join(workDir, 'bench.cache');
const primed = join(workDir, 'bench.cache.primed');
const restoreCache = () => copyFileSync(primed, cache);

// Peak resident memory is sampled every 50 ms over the whole process tree, in runs of their own
// (measureAll): the command's own process, the largest single process (what /usr/bin/time reports),
// and the sum of all of them.
// The floor (issue 31): `git cat-file --batch` of every blob, what reading every version costs git.
const floor = floorCommand(repo, workDir, 'scan-bench');
const floorName = 'floor: git cat-file --batch, every blob';
const full: [string, string, string[]][] = [
  ['git log -p -U0 --all --cc > /dev/null', 'git', ['-C', repo, 'log', '-p', '-U0', '--all', '--cc']],
  [floorName, floor.command, floor.args],
  ['svc scan --no-verify --format json', process.execPath, scanArgs],
  [
    'svc scan, diff path (before issue 10)',
    process.execPath,
    [join(root, 'bench', 'scan-once.mjs'), repo, 'diff'],
  ],
];
if (existsSync(binary)) {
  full.push(['svc scan, single executable (CI)', binary, scanArgs.slice(1)]);
} else {
  console.log(`no ${binary}: run \`npm run build:binary\` to measure the single executable too`);
}
const results = new Map<string, Measurement[]>();
const add = (name: string, m: Measurement) => results.set(name, [...(results.get(name) ?? []), m]);
const load: number[] = [];
for (let i = 0; i < runs; i++) {
  // Interleaved, so page-cache warmth and machine noise fall on every case alike.
  for (const [name, command, args] of full) {
    load.push(loadavg()[0]!);
    add(name, await measureAll(name, command, args));
  }
}

// Incremental: a cache primed by one full scan, restored before each run.
spawnSync(process.execPath, [...scanArgs, '--cache', cache], { stdio: 'ignore' });
copyFileSync(cache, primed);
const unchanged = 'svc scan --cache (history unchanged)';
for (let i = 0; i < runs; i++)
  add(
    unchanged,
    await measureAll(unchanged, process.execPath, [...scanArgs, '--cache', cache], restoreCache),
  );
addOneCommit(repo);
const oneNew = 'svc scan --cache (after one new commit)';
for (let i = 0; i < runs; i++)
  add(oneNew, await measureAll(oneNew, process.execPath, [...scanArgs, '--cache', cache], restoreCache));

// The scan exits 1 (it finds the planted credentials), so read its report without treating that as an error.
const scanned = spawnSync(process.execPath, scanArgs, { encoding: 'utf8', maxBuffer: 1 << 28 });
const report = JSON.parse(scanned.stdout || '{}');
const cached = spawnSync(process.execPath, [...scanArgs, '--cache', cache], {
  encoding: 'utf8',
  maxBuffer: 1 << 28,
});
console.log(
  `\nmedian of ${runs} runs, machine: ${execFileSync('nproc', { encoding: 'utf8' }).trim()} cores, ` +
    `1-minute load average during the full-scan runs ${Math.min(...load).toFixed(1)}-${Math.max(...load).toFixed(1)}; ` +
    'wall from runs without the memory sampler, memory from a sampled run each',
);
console.log(
  `${'command'.padEnd(46)} ${'wall'.padStart(9)} ${'vs git'.padStart(6)} ${'vs floor'.padStart(8)} ${'own process'.padStart(13)} ${'largest proc.'.padStart(15)} ${'all procs'.padStart(13)} ${'all, PSS'.padStart(13)}`,
);
const baseline = median(results.get(full[0]![0])!.map((m) => m.wallSeconds));
const floorSeconds = median(results.get(floorName)!.map((m) => m.wallSeconds));
for (const [name, ms] of results) console.log(row(name, ms, baseline, floorSeconds));
console.log(
  `floor: ${floor.count.toLocaleString('en')} blobs, ${(floor.bytes / 1e9).toFixed(2)} GB; ` +
    '`npm run bench:scale` for memory and time on histories of growing length',
);
console.log(
  `\nscan found ${report.summary?.total ?? '?'} findings in ${report.commitsScanned ?? '?'} commits; ` +
    `the cached re-scan's report is ${cached.stdout === scanned.stdout ? 'identical to' : 'DIFFERENT from'} a full scan's`,
);
