import { ScanError } from '../errors.js';
import { walkCommits } from './commit-walk.js';
import { type AddedLineSink, COMMIT_FORMAT, DiffStreamParser, PATCH_OPTIONS } from './diff-parser.js';
import {
  BOUNDED_PACK_MEMORY,
  firstLine,
  type GitRunner,
  HandlerGuard,
  isOneInputLine,
  runGit,
  spawnFailure,
  spawnGit,
} from './git.js';

/**
 * `git log` with every option that shapes its output pinned, so user configuration (diff.noprefix,
 * log.showSignature, diff.external, textconv drivers, color.ui=always, diff.submodule=log...) cannot
 * change what the parser reads. -U0: only changed lines; --cc: merges show the lines in none of their
 * parents (conflict resolutions, evil merges); -M: renames (git's default similarity). A 16 MB delta
 * base cache, not git's 96 MB: blob-first sends only a few hundred commits here, and on a 39,000-commit
 * history this git was the scan's largest process at its peak (150 MB), after the blob reading ended.
 * The diff path (method 'diff', the reference) reads the whole history with the same setting; its
 * cost there was not measured apart (its bench row went from 18.5 to 20.1 s on that history, and
 * from 6.8 to 8.4 s on the synthetic one, in runs whose git log also moved).
 */
const LOG_ARGS = [
  // Paths limiting a diff (scanCommitsByDiff) are file names, never patterns.
  '--literal-pathspecs',
  ...BOUNDED_PACK_MEMORY,
  '-c',
  'core.deltaBaseCacheLimit=16m',
  '-c',
  'log.showRoot=true',
  '-c',
  'log.showSignature=false',
  '-c',
  'diff.renames=true',
  'log',
  '--no-walk=unsorted',
  COMMIT_FORMAT,
  '--encoding=UTF-8',
  '--cc',
  '--no-notes',
  ...PATCH_OPTIONS,
];

/** Below this many commits a second git process costs more than it saves. */
const MIN_COMMITS_PER_PROCESS = 1024;

export interface HistoryScanOptions {
  git: GitRunner;
  sink: AddedLineSink;
  prefilter: RegExp;
  /** How many `git log` processes to run at once. */
  parallelism: number;
}

/** Commit ids by place, and runs of them as `<hex>\n` records for git's standard input. */
export interface CommitSequence {
  readonly length: number;
  at(i: number): string;
  /** The records of commits [from, to). */
  slice(from: number, to: number): Buffer;
}

/**
 * A CommitList read from its end: no copy of the list (41 bytes a commit, 53 MB for a
 * 1.3-million-commit history), each run it gives reversed as it is asked for.
 */
export class ReversedCommits implements CommitSequence {
  constructor(private readonly list: CommitList) {}
  get length(): number {
    return this.list.length;
  }
  at(i: number): string {
    return this.list.at(this.list.length - 1 - i);
  }
  slice(from: number, to: number): Buffer {
    const width = this.list.width;
    const n = this.list.length;
    const out = Buffer.allocUnsafe((to - from) * width);
    for (let i = from; i < to; i++)
      this.list.records.copy(out, (i - from) * width, (n - 1 - i) * width, (n - i) * width);
    return out;
  }
  /** The commits at the first `count` of `places` (places in this order), as a list. */
  pick(places: Int32Array, count: number): CommitList {
    const n = this.list.length;
    const mapped = new Int32Array(count);
    for (let k = 0; k < count; k++) mapped[k] = n - 1 - places[k]!;
    return this.list.pick(mapped, count);
  }
}

/** A list of commit ids stored as one buffer of fixed-width `<hex>\n` records: ~41 bytes a commit. */
export class CommitList implements CommitSequence {
  constructor(
    readonly records: Buffer,
    readonly width: number,
  ) {}
  get length(): number {
    return this.width === 0 ? 0 : this.records.length / this.width;
  }
  at(i: number): string {
    return this.records.toString('latin1', i * this.width, (i + 1) * this.width - 1);
  }
  from(i: number): Buffer {
    return this.slice(i, this.length);
  }
  /** The records of commits [from, to). */
  slice(from: number, to: number): Buffer {
    return this.records.subarray(from * this.width, to * this.width);
  }
  /** The commits for which `keep` says true, in the same order. */
  filter(keep: (sha: string) => boolean): CommitList {
    const parts: Buffer[] = [];
    for (let i = 0; i < this.length; i++) {
      if (keep(this.at(i))) parts.push(this.records.subarray(i * this.width, (i + 1) * this.width));
    }
    return new CommitList(Buffer.concat(parts), parts.length === 0 ? 0 : this.width);
  }
  /** The commits at the first `count` of `places`, in that order. */
  pick(places: Int32Array, count: number): CommitList {
    const out = Buffer.allocUnsafe(count * this.width);
    for (let k = 0; k < count; k++) {
      const at = places[k]! * this.width;
      this.records.copy(out, k * this.width, at, at + this.width);
    }
    return new CommitList(out, count === 0 ? 0 : this.width);
  }
  concat(other: CommitList): CommitList {
    if (other.length === 0) return this;
    if (this.length === 0) return other;
    return new CommitList(Buffer.concat([this.records, other.records]), this.width);
  }
  static of(shas: readonly string[]): CommitList {
    const width = shas.length > 0 ? shas[0]!.length + 1 : 0;
    return new CommitList(Buffer.from(shas.map((c) => `${c}\n`).join(''), 'latin1'), width);
  }
}

/**
 * Runs `git log -p` over the given commits, split into contiguous runs across processes, and returns
 * the commits git could not read. `minPerProcess` trades a process's start-up against parallelism.
 * `paths` limits the diffs to those paths, literally; when one cannot be passed (a line break), the
 * diffs are whole.
 */
export async function scanCommitsByDiff(
  options: HistoryScanOptions,
  commits: CommitList,
  onCommitDone: () => void,
  minPerProcess = MIN_COMMITS_PER_PROCESS,
  paths?: readonly string[],
): Promise<string[]> {
  const parts = partition(
    commits,
    Math.max(1, Math.min(options.parallelism, Math.ceil(commits.length / minPerProcess))),
  );
  const unreadable: string[] = [];
  // After the commits, `--` and the paths: `git log --stdin` reads a limit there.
  const limit =
    paths === undefined || !paths.every(isOneInputLine)
      ? undefined
      : Buffer.from(`--\n${paths.map((p) => `${p}\n`).join('')}`);
  // When one part fails, the others stop too: the scan has failed.
  const running = new RunningGits();
  await Promise.all(
    parts.map((part) => scanPart(options, part, unreadable, onCommitDone, limit, running)),
  ).catch((e: unknown) => {
    running.stopAll();
    throw e;
  });
  return unreadable;
}

/** The `git log` processes of one diff pass, so that a failure in one part ends the others. */
class RunningGits {
  stopped = false;
  readonly ends = new Set<() => void>();
  stopAll(): void {
    this.stopped = true;
    for (const end of this.ends) end();
  }
}

/**
 * A part of the history: the commits reachable from `tips` and from none of `exclude` (nor, with
 * `excludeEveryRef`, from any ref the repository has: what a push adds, seen from a git server's
 * pre-receive hook, before its refs move).
 */
export interface CommitRange {
  tips: readonly string[];
  exclude: readonly string[];
  excludeEveryRef?: boolean;
}

/**
 * A range as git revisions: its tips, then each excluded tip as `^tip`, after `--end-of-options` so
 * that no revision is ever read as an option. Every ref is excluded by `--not --all --not` before
 * it (the second `--not` turns the tips back to included).
 */
export function rangeRevisions(range: CommitRange): string[] {
  return [
    ...(range.excludeEveryRef === true ? ['--not', '--all', '--not'] : []),
    '--end-of-options',
    ...range.tips,
    ...range.exclude.map((revision) => `^${revision}`),
  ];
}

/**
 * Every commit reachable from any ref, once (or only a range's). `git rev-list --all` dies on a
 * missing commit object; then a slower walk lists what can be read, and the missing commits are
 * unreadable from the start. A range names its commits itself: one it cannot list is an error.
 */
export async function listCommits(
  git: GitRunner,
  range?: CommitRange,
): Promise<{ list: CommitList; missing: string[] }> {
  const revisions = range === undefined ? ['--all'] : rangeRevisions(range);
  const result = await runGit(git, ['rev-list', ...revisions]);
  if (result.code === 0) {
    const nl = result.stdout.indexOf(0x0a);
    return { list: new CommitList(result.stdout, nl + 1), missing: [] };
  }
  if (range !== undefined) {
    throw new ScanError('fatal', `cannot list the commits to scan: ${firstLine(result.stderr)}`);
  }
  const walked = await walkCommits(git);
  if (walked.commits.length === 0 && walked.missing.length === 0) {
    throw new ScanError('fatal', `cannot list the repository's commits: ${firstLine(result.stderr)}`);
  }
  return { list: CommitList.of(walked.commits), missing: walked.missing };
}

/**
 * Contiguous runs of the history, one per process: neighbouring commits share trees and delta bases,
 * so a contiguous run keeps each git's caches warm (interleaved blocks measured 25% slower).
 */
function partition(all: CommitList, count: number): CommitList[] {
  if (count === 1) return [all];
  const size = Math.ceil(all.length / count) * all.width;
  return Array.from(
    { length: count },
    (_, i) => new CommitList(all.records.subarray(i * size, (i + 1) * size), all.width),
  );
}

/**
 * Runs `git log` over one part's commits. A damaged repository makes git die at the first object it
 * cannot read; we then find the commit that failed, record it, and go on with the ones after it.
 */
async function scanPart(
  options: HistoryScanOptions,
  part: CommitList,
  unreadable: string[],
  onCommitDone: () => void,
  limit: Buffer | undefined,
  running: RunningGits,
): Promise<void> {
  let start = 0;
  while (start < part.length && !running.stopped) {
    const stdin = limit === undefined ? part.from(start) : Buffer.concat([part.from(start), limit]);
    const run = await runLog(options, ['--stdin'], stdin, onCommitDone, running);
    if (run.ok) return;
    // git prints a commit's header only after its rename detection has read blobs, so the failing
    // commit is either the last one whose header we saw or the one after it: try each alone.
    const last = start + run.commitsSeen - 1;
    const candidates = run.commitsSeen === 0 ? [start] : [last, last + 1];
    let next = candidates[candidates.length - 1]! + 1;
    for (const index of candidates) {
      if (index >= part.length) break;
      const single = await runLog(options, [part.at(index)], undefined, () => {}, running);
      if (!single.ok) {
        unreadable.push(part.at(index));
        next = index + 1;
        break;
      }
    }
    start = next;
  }
}

interface LogRun {
  ok: boolean;
  commitsSeen: number;
}

function runLog(
  options: HistoryScanOptions,
  revisions: string[],
  stdin: Buffer | undefined,
  onCommitDone: () => void,
  running: RunningGits,
): Promise<LogRun> {
  return new Promise((resolve, reject) => {
    const prefilter = new RegExp(options.prefilter.source, options.prefilter.flags);
    // A commit is done when the next one's header arrives, or when git exits cleanly.
    const parser = new DiffStreamParser(options.sink, prefilter, () => {
      if (parser.commitsSeen > 1) onCommitDone();
    });
    const child = spawnGit(options.git, [...LOG_ARGS, ...revisions]);
    // The sink and onCommitDone run inside the parser: one that throws ends git and rejects the run.
    const end = () => child.kill('SIGKILL');
    const guard = new HandlerGuard(end);
    running.ends.add(end);
    child.stdout.on('data', (chunk: Buffer) => guard.run(() => parser.push(chunk)));
    child.stderr.resume();
    child.on('error', (e) => reject(spawnFailure(options.git, e)));
    child.on('close', (code) => {
      running.ends.delete(end);
      guard.run(() => {
        parser.end();
        if (code === 0 && parser.commitsSeen > 0) onCommitDone();
      });
      if (guard.failed) reject(guard.error);
      else resolve({ ok: code === 0, commitsSeen: parser.commitsSeen });
    });
    child.stdin.on('error', () => {}); // git died early; its exit code says so.
    child.stdin.end(stdin);
  });
}
