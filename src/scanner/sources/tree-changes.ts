import { BOUNDED_PACK_MEMORY, type GitRunner, HandlerGuard, spawnFailure, spawnGit } from './git.js';
import type { CommitSequence } from './history.js';
import { listChangesNatively } from './native-listing.js';
import { openObjectDatabase } from './object-database.js';
import { changeOf, type TreeChange } from './tree-change.js';

export type { TreeChange } from './tree-change.js';

/**
 * Tree changes only: no blob is read and no line diff is made. -c lists, for a merge, only the paths
 * that differ from every parent (a superset of what `--cc` shows lines for); --no-renames because the
 * gate needs the blobs, not the pairing, and rename detection is the one part of this that reads
 * blobs. Output-shaping options are pinned as in history.ts.
 */
export const RAW_ARGS = [
  // Paths limiting a listing (`paths`) are file names, never patterns.
  '--literal-pathspecs',
  ...BOUNDED_PACK_MEMORY,
  // Trees only: a small delta-base cache costs nothing here (65 MB instead of 180 MB, same speed).
  '-c',
  'core.deltaBaseCacheLimit=8m',
  '-c',
  'log.showRoot=true',
  '-c',
  'log.showSignature=false',
  'log',
  '--no-walk=unsorted',
  '--stdin',
  // The commit, then its parents (how many: a merge's per-parent listing takes merges alone).
  '--format=%x01%H%x01%P',
  '--raw',
  '-r',
  '--no-renames',
  '--no-abbrev',
  '--no-notes',
  '--no-relative',
  '-z',
];

/**
 * The merges' per-parent listing (damaged histories: blob-first.ts) maps at most 32 MB of pack, not
 * 64: two of them run beside the scan's process at its fullest. On rails its two gits had 62-76 MB
 * of pack and index mapped each with 64 MB, the scan's summed peak (290 MiB) there; with 32 MB the
 * peak moved elsewhere (240 MiB) and the listing's git time stayed within the noise (4.6-6.0 s
 * against 5.2-5.5 s; 16 MB took 7.7-9.5 s).
 */
const MERGE_LISTING_PACK_MEMORY = ['-c', 'core.packedGitLimit=32m'];

/**
 * `combined`: each commit once, a merge's paths that differ from every parent (`-c`).
 * `per-parent`: merges only, every path that differs from each parent (`-m`): git's listing hands a
 * merge on once per parent, the native reader's once with every parent's changes.
 */
export type ListingMode = 'combined' | 'per-parent';
export const MODE_ARGS: Record<ListingMode, string[]> = {
  combined: ['-c'],
  'per-parent': ['-m', '--merges'],
};

const NUL = 0;

/**
 * Commits per `git log --raw` process. git reads every commit named on its standard input before it
 * lists the first, and keeps what it allocated for them: on a 38,910-commit history one process
 * held 44 MB of its own and 129 MB in all by its end (the pack's pages it read count too), the
 * scan's second largest process at its peak. Processes of 4,096 commits, one after another: 45 MB
 * at most, for 0.1-0.15 s more of git's time (1.33 s against 1.42-1.51 s alone).
 */
const LISTING_CHUNK = 4096;

/** Called once for each commit listed: its id, its changes, and how many parents it has. */
export type OnCommit = (sha: string, changes: TreeChange[], parents: number) => void;

/**
 * Holds the listing back to its reader's pace: called after each piece of git's output is parsed,
 * true when the listing must wait, and then it calls `resume` (later, never from within the call)
 * when it may go on.
 */
export type ListingPace = (resume: () => void) => boolean;

/**
 * Lists the tree changes of every commit in `commits`, in order, calling `onCommit` once for each:
 * in this process where the native object reader can (native-listing.ts; `withGit` says not to;
 * a combined listing limited to paths goes to git), else `chunk` commits to a git process. When git dies
 * on a damaged object, the commits it could not list are handed to `onUnlisted` (the caller reads
 * them the careful way) and the listing resumes after them. `paths` limits the listing to those
 * paths (literally; none may hold a line break).
 */
export async function listTreeChanges(
  git: GitRunner,
  commits: CommitSequence,
  onCommit: OnCommit,
  onUnlisted: (sha: string) => void,
  mode: ListingMode = 'combined',
  chunk = LISTING_CHUNK,
  { pace, paths, withGit = false }: { pace?: ListingPace; paths?: readonly string[]; withGit?: boolean } = {},
): Promise<void> {
  // `--sparse`: with paths, every commit is printed, even one the paths leave unchanged against
  // a parent (history simplification would drop a merge equal to one parent there).
  // git's options go before `log`; the later of two settings of a key wins.
  const log = RAW_ARGS.indexOf('log');
  const args = [
    ...RAW_ARGS.slice(0, log),
    ...(mode === 'per-parent' ? MERGE_LISTING_PACK_MEMORY : []),
    ...RAW_ARGS.slice(log),
    ...MODE_ARGS[mode],
    ...(paths === undefined ? [] : ['--sparse']),
  ];
  // After the commits, `--` and the paths: `git log --stdin` reads a limit there.
  const limit =
    paths === undefined ? undefined : Buffer.from(`--\n${paths.map((p) => `${p}\n`).join('')}`, 'latin1');
  /** Lists commits [from, to) with git, `chunk` to a process, handing on those git could not list. */
  const listWithGit = async (from: number, to: number): Promise<void> => {
    let start = from;
    while (start < to) {
      git.signal?.throwIfAborted(); // an aborted scan starts no more gits
      const end = Math.min(to, start + chunk);
      const stdin =
        limit === undefined ? commits.slice(start, end) : Buffer.concat([commits.slice(start, end), limit]);
      const listed = await runRaw(git, args, stdin, onCommit, pace);
      if (listed === null) {
        start = end;
        continue;
      }
      if (mode === 'per-parent') {
        // A merge is printed once per parent, so the count of headers does not say where git died:
        // on failure every commit of this run is unlisted (only used on damaged repositories).
        for (let i = start; i < end; i++) onUnlisted(commits.at(i));
        start = end;
        continue;
      }
      // git prints a commit once its whole tree diff is made, so the commit after the last one
      // printed is the one it died on; the last printed may be cut short, so it goes the careful way
      // too.
      const failedAt = start + listed;
      if (listed > 0) onUnlisted(commits.at(failedAt - 1));
      if (failedAt < end) onUnlisted(commits.at(failedAt));
      start = Math.min(failedAt + 1, end);
    }
  };
  // The listing is made in this process where the native reader can (object-database.ts); a
  // commit it leaves to git is listed by git. A per-parent listing's paths: git's own limit.
  const opened =
    !withGit && (paths === undefined || mode === 'per-parent')
      ? await openObjectDatabase(git, 'listing')
      : null;
  if (opened === null) return listWithGit(0, commits.length);
  const waitIfPaced = () =>
    new Promise<void>((resolve) => {
      if (!pace?.(resolve)) resolve();
    });
  try {
    await listChangesNatively(
      opened,
      commits,
      onCommit,
      (place) => listWithGit(place, place + 1),
      waitIfPaced,
      git.signal,
      mode === 'per-parent' ? { mode, paths } : { mode },
    );
  } finally {
    opened.reader.close(opened.db);
  }
}

/**
 * One `git log --raw` run; null when it listed everything, else how many commits it completed. An
 * exception thrown by `onCommit` ends git and rejects the run (HandlerGuard).
 */
function runRaw(
  git: GitRunner,
  args: string[],
  stdin: Buffer,
  onCommit: OnCommit,
  pace: ListingPace | undefined,
): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const parser = new RawParser(onCommit);
    const child = spawnGit(git, args);
    const guard = new HandlerGuard(() => child.kill('SIGKILL'));
    const resume = () => child.stdout.resume();
    // Once git has exited (killed: the scan was aborted or failed), its output is read to the end
    // unpaced: a paused pipe would never end, and the run never settle.
    let exited = false;
    child.on('exit', () => {
      exited = true;
      resume();
    });
    child.stdout.on('data', (chunk: Buffer) =>
      guard.run(() => {
        parser.push(chunk);
        if (!exited && pace?.(resume)) child.stdout.pause();
      }),
    );
    child.stderr.resume();
    child.on('error', (e) => reject(spawnFailure(git, e)));
    child.on('close', (code) => {
      if (code === 0) guard.run(() => parser.finish());
      if (guard.failed) reject(guard.error);
      else resolve(code === 0 ? null : parser.completed);
    });
    child.stdin.on('error', () => {}); // git died early; its exit code says so.
    child.stdin.end(stdin);
  });
}

/**
 * Parser of `--format=%x01%H%x01%P --raw -z` output: NUL-separated fields; a commit header field
 * starts with \x01 (the id, \x01, the parents' ids separated by spaces); a raw entry is a `:`-field
 * (`::` and more colons for a merge's combined form) then a path field. A commit is complete when the
 * next header arrives or git exits cleanly.
 */
class RawParser {
  private carry = '';
  private sha: string | null = null;
  private parents = 0;
  private changes: TreeChange[] = [];
  /** The entry whose path is the next field (null when that path's entry is not kept). */
  private awaitingPath: TreeChange | null = null;
  private expectPath = false;
  completed = 0;

  constructor(private readonly onCommit: OnCommit) {}

  push(chunk: Buffer): void {
    const lastNul = chunk.lastIndexOf(NUL);
    if (lastNul === -1) {
      this.carry += chunk.toString('latin1');
      return;
    }
    const fields = (this.carry + chunk.toString('latin1', 0, lastNul)).split('\0');
    this.carry = chunk.toString('latin1', lastNul + 1);
    for (const field of fields) this.field(field);
  }

  finish(): void {
    if (this.carry !== '') this.field(this.carry);
    this.carry = '';
    this.flush();
  }

  private field(raw: string): void {
    if (this.expectPath) {
      this.expectPath = false;
      if (this.awaitingPath !== null) {
        this.awaitingPath.path = raw;
        this.changes.push(this.awaitingPath);
        this.awaitingPath = null;
      }
      return;
    }
    const field = raw.charCodeAt(0) === 0x0a ? raw.slice(1) : raw;
    if (field === '') return;
    if (field.charCodeAt(0) === 0x01) {
      this.flush();
      const end = field.indexOf('\x01', 1);
      this.sha = field.slice(1, end);
      this.parents = end + 1 === field.length ? 0 : field.split(' ').length;
      return;
    }
    if (field.charCodeAt(0) === 0x3a /* : */) {
      this.expectPath = true;
      this.awaitingPath = parseEntry(field);
    }
  }

  private flush(): void {
    if (this.sha === null) return;
    this.onCommit(this.sha, this.changes, this.parents);
    this.completed++;
    this.sha = null;
    this.changes = [];
  }
}

const isNull = (id: string): boolean => /^0+$/.test(id);

/**
 * `:<old mode> <new mode> <old id> <new id> <status>`, or for a merge with N parents
 * `::…` with N+1 modes, N+1 ids (the parents' then the merge's) and N status letters.
 */
function parseEntry(field: string): TreeChange | null {
  let colons = 0;
  while (field.charCodeAt(colons) === 0x3a) colons++;
  const parts = field.slice(colons).split(' ');
  const modes = parts.slice(0, colons + 1).map((mode) => Number.parseInt(mode, 8));
  const ids = parts.slice(colons + 1, 2 * colons + 2).map((id) => (isNull(id) ? null : id));
  if (ids.length !== colons + 1) return null;
  return changeOf('', modes[colons]!, ids[colons]!, modes.slice(0, colons), ids.slice(0, colons));
}
