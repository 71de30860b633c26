import { BlobState, BlobTable, CommitVerdict } from './blob-table.js';
import { DeferredGate } from './deferred-gate.js';
import { descendantsOf } from './descendants.js';
import { withDiffIndex } from './diff-index.js';
import { collectGarbageIfGrown, releaseUnusedMemory } from './free-memory.js';
import { BOUNDED_PACK_MEMORY, type GitRunner, isOneInputLine, runGit } from './git.js';
import {
  CommitList,
  type DiffPlan,
  type HistoryScanOptions,
  REV_LIST_SEGMENT,
  ReversedCommits,
  scanCommitsByDiff,
} from './history.js';
import { openBlobReader } from './native-blob-stream.js';
import { ownString } from './own-string.js';
import { PathOrderedRequests } from './request-order.js';
import { listTreeChanges } from './tree-changes.js';
import { grown } from './typed-arrays.js';

/**
 * Blob-first scanning (see docs/ARCHITECTURE.md, "Why this design"). git's line diffs are the cost
 * of a scan, and almost no commit needs one: a commit can only yield a finding where it adds a
 * detection line (blob-gate.ts), and such a line is in one of the blobs the commit brings in. So:
 *
 * 1. list each commit's tree changes (`git log --raw`: no blob read, no diff);
 * 2. read each blob once (`git cat-file --batch`, asked for one file's versions after another:
 *    request-order.ts) and ask the gate whether it holds a detection line, looking only at the lines
 *    that differ from the version it replaced (deferred-gate.ts), and of those only at the ones that
 *    version does not have (shared-runs.ts);
 * 3. run git's own diff (history.ts, the reference path) over just the commits that bring in such a
 *    blob, or that git could not list or read: their findings and unreadable commits are exactly
 *    what the diff path gives, and every other commit provably has none. Where the packs' indexes
 *    are large, git looks their objects up in indexes of just those objects (diff-index.ts).
 */

/** Fewer commits than this share one `git log -p`: the diff pass is short, start-up is not free. */
const MIN_DIFF_COMMITS_PER_PROCESS = 64;
/**
 * Blob requests are sent in path order (request-order.ts) in batches of this many, as the listing
 * goes: reading starts while git is still listing. Measured (two runs each, 39,000 and 24,000
 * commits): 2,048 11.5-12.4 s and 6.3-6.9 s; 8,192 10.9-11.4 s and 5.9-6.4 s; the whole history
 * at once 11.8-13.0 s and 6.2-7.0 s; history order 12.2-13.6 s and 8.2-9.0 s.
 */
const REQUEST_BATCH = 8192;
/**
 * The listing waits while more blob requests than this are unanswered, and goes on at half. git
 * lists tree changes faster than `cat-file` inflates blobs (on rails 28 s against 45 s), and
 * whatever the listing is ahead by waits in memory: each blob's references, its request queued for
 * `cat-file`. Unheld, that was 165,000 blobs on rails at the listing's end; it grows with history.
 */
const MAX_REQUESTS_AHEAD = 65_536;
/**
 * More paths than this limit the merges' per-parent listing (mergesTouchingMissingBlobs) by their
 * first component instead: git matches every tree entry it compares against every path of the
 * limit, so its time grows with their number. On git/git, 175 paths (150 of them under `build/`,
 * from one stray commit) took 3.6 s of git's time for 1,173 merges, their 16 first components
 * 0.34 s, no limit 0.39 s.
 */
const MAX_LIMIT_PATHS = 16;
/**
 * Processes listing the merges again at once (mergesTouchingMissingBlobs), at most: each holds up to
 * about 50 MB, and the blob reading, its `cat-file` and its ring are done by then.
 */
const MAX_MERGE_LISTINGS = 2;
/**
 * Histories shorter than this leave little to give back between phases (releaseUnusedMemory): a full
 * collection there would cost more than it returns, in a service's process or a test run's the most.
 */
const RELEASE_FROM_COMMITS = 10_000;
/** How often the reading's heap is looked at, and collected when it has grown (free-memory.ts). */
const COLLECT_EVERY_MS = 500;

export async function scanCommitsBlobFirst(
  options: HistoryScanOptions,
  commits: CommitList,
  onCommitDone: () => void,
): Promise<string[]> {
  if (commits.length === 0) return [];
  const { commitsToDiff, suspects, plan } = await gateCommits(options, commits, onCommitDone);
  // The gate's tables are unreachable now, and the diff pass is the scan's peak of memory (the
  // scan's own process beside two `git log -p`): what they held goes back to the system first.
  await releaseBetweenPhases(commits);
  // git reads the objects of these diffs through indexes of just them where the repository's are
  // large (diff-index.ts).
  return withDiffIndex(
    options.git,
    [...commitsToDiff, ...suspects],
    (git) =>
      scanCommitsByDiff(
        { ...options, git },
        CommitList.of(commitsToDiff),
        onCommitDone,
        MIN_DIFF_COMMITS_PER_PROCESS,
        undefined,
        suspects,
        plan,
      ),
    options.diffIndexFromBytes,
  );
}

/** Between two phases of a scan of `commits`: what the last one held goes back to the system. */
async function releaseBetweenPhases(commits: CommitList): Promise<void> {
  if (commits.length >= RELEASE_FROM_COMMITS) await releaseUnusedMemory();
}

/** The commits git's diff is to read: in runs (`commitsToDiff`), and one at a time (`suspects`). */
interface DiffWork {
  commitsToDiff: string[];
  suspects: string[];
  /** How git is to read `commitsToDiff`: which limited to some paths, which in wide pack windows. */
  plan: DiffPlan;
}

/**
 * A commit's diff is limited to the paths it needs (BlobTable.pathsToDiff) when it leaves out at
 * least MIN_LEFT_OUT files and needs at most MAX_LIMITED_PATHS. On rails the diff pass's 465
 * commits took 21 s of git's time whole, most of it in commits that change a line in thousands of
 * files (a style rule applied to the whole tree: 2,313 files and 9.6 MB of diff for one commit,
 * 0.40 s; limited to its few paths, 0.03 s). A limit is not free: git matches every entry of every
 * tree it walks against each path of it, so a commit with little to leave out is read whole (on
 * 200,000 synthetic commits, whose diff pass is 2,000 small commits in trees of 2,000 directories,
 * limiting them all took the scan from 13.5 to 15.8 s). Past MAX_LIMITED_PATHS its paths are mostly
 * added and deleted files, whose diff git makes either way.
 */
const MIN_LEFT_OUT = 16;
const MAX_LIMITED_PATHS = 256;

async function gateCommits(
  options: HistoryScanOptions,
  commits: CommitList,
  onCommitDone: () => void,
): Promise<DiffWork> {
  const blobs = new BlobTable(options.blobIdsInMemory);
  try {
    return await readThroughGate(options, commits, onCommitDone, blobs);
  } finally {
    blobs.close();
  }
}

/** What reading every blob through the gate leaves for the rest of the scan. */
interface GateReading {
  ordered: ReversedCommits;
  /** Commits git will most likely fail on (unlisted, or naming a missing blob): diffed one by one. */
  suspects: string[];
  /** One bit a commit (by place in `ordered`): a merge. Only merges are listed again per parent. */
  merges: Uint8Array;
  /** Every commit the refs reach was listed (see pathsNamingMissing). */
  everyBlobListed: boolean;
  /** When every blob was listed and some are missing, the paths where any commit named one. */
  pathsNamingMissing?: string[];
  /** The paths the listing numbered, by number. */
  pathNames: (numbers: ReadonlySet<number>) => Map<number, string>;
}

async function readThroughGate(
  options: HistoryScanOptions,
  commits: CommitList,
  onCommitDone: () => void,
  blobs: BlobTable,
): Promise<DiffWork> {
  const { ordered, suspects, merges, everyBlobListed, pathsNamingMissing, pathNames } = await readBlobs(
    options,
    commits,
    blobs,
  );
  // The reading's garbage and buffers go before the merges' second listing (two more gits).
  if (blobs.missingCount > 0) await releaseBetweenPhases(commits);
  const commitsToDiff: string[] = [];
  // The clean merges, for a damaged repository's second look (mergesTouchingMissingBlobs).
  let cleanMerges = new Int32Array(blobs.missingCount > 0 ? 1024 : 0);
  let cleanMergeCount = 0;
  // The paths (by number) each commit's diff may be limited to, named once all are known.
  const limitedPaths = new Map<string, number[]>();
  const heavy = new Set<string>();
  blobs.decideCommits((place, verdict, pathsToDiff) => {
    if (verdict === CommitVerdict.MayAddDetectionLine) {
      const sha = ordered.at(place);
      commitsToDiff.push(sha);
      // A merge's combined diff is made of its diffs against each parent, which the listing (-c)
      // does not show: merges are read whole, their rename detection reading much (heavy).
      if (isMerge(merges, place)) {
        heavy.add(sha);
        return;
      }
      const { paths, leftOut } = pathsToDiff();
      if (leftOut >= MIN_LEFT_OUT && paths.length <= MAX_LIMITED_PATHS) limitedPaths.set(sha, paths);
      return;
    }
    if (verdict === CommitVerdict.NamesMissingBlob) {
      suspects.push(ordered.at(place));
      return;
    }
    onCommitDone();
    if (blobs.missingCount === 0 || !isMerge(merges, place)) return;
    if (cleanMergeCount === cleanMerges.length) cleanMerges = grown(cleanMerges);
    cleanMerges[cleanMergeCount++] = place;
  });
  if (blobs.missingCount > 0) {
    const paths = pathsNamingMissing === undefined ? undefined : limitingPaths(pathsNamingMissing);
    const limit = paths?.every(isOneInputLine) ? paths : undefined;
    // And which merges can name one (descendants.ts), when the walk that tells it is likely to pay.
    const near = everyBlobListed
      ? await mergesNearMissing(options.git, ordered, blobs, cleanMerges, cleanMergeCount)
      : null;
    let count = 0;
    for (let i = 0; i < cleanMergeCount; i++) {
      if (near === null || near(ordered.at(cleanMerges[i]!))) cleanMerges[count++] = cleanMerges[i]!;
    }
    const clean = ordered.pick(cleanMerges, count);
    const touching = await mergesTouchingMissingBlobs(options, clean, blobs, limit);
    suspects.push(...touching.alone);
    commitsToDiff.push(...touching.withOthers);
    for (const merge of touching.withOthers) heavy.add(merge);
  }
  return { commitsToDiff, suspects, plan: { limits: namedLimits(limitedPaths, pathNames), heavy } };
}

function isMerge(merges: Uint8Array, place: number): boolean {
  return (merges[place >> 3]! & (1 << (place & 7))) !== 0;
}

/** The limits by path name: each commit's paths, each name one string shared by every commit naming it. */
function namedLimits(
  limitedPaths: ReadonlyMap<string, readonly number[]>,
  pathNames: (numbers: ReadonlySet<number>) => Map<number, string>,
): Map<string, string[]> {
  const numbers = new Set<number>();
  for (const paths of limitedPaths.values()) for (const path of paths) numbers.add(path);
  const names = pathNames(numbers);
  const limits = new Map<string, string[]>();
  for (const [sha, paths] of limitedPaths)
    limits.set(
      sha,
      paths.map((path) => names.get(path)!),
    );
  return limits;
}

/**
 * Lists every commit's tree changes and reads each blob they bring in through the gate (steps 1
 * and 2), recording what they changed in `blobs`. The gate, the reader and the requests end here:
 * what they held is garbage for the rest of the scan.
 */
async function readBlobs(
  options: HistoryScanOptions,
  commits: CommitList,
  blobs: BlobTable,
): Promise<GateReading> {
  const gate = new DeferredGate(blobs);
  const suspects: string[] = [];
  // One listing and one blob stream, oldest first (deferred-gate.ts). A second pair, one per core,
  // was measured: its gain was within the noise of a shared machine, and two more git processes with
  // their caches take the scan over its 300 MB budget.
  const stream = await openBlobReader(options.git, gate.sink());
  const requests = new PathOrderedRequests(stream);
  const ordered = new ReversedCommits(commits);
  let place = 0;
  let unlisted = 0;
  const merges = new Uint8Array((ordered.length + 7) >> 3);
  const pace = (resume: () => void) => {
    if (stream.pending <= MAX_REQUESTS_AHEAD) return false;
    stream.whenPendingAtMost(MAX_REQUESTS_AHEAD / 2, resume);
    return true;
  };
  // The reading's garbage is collected as it goes (free-memory.ts), not left to V8's growing limit.
  const collecting = setInterval(collectGarbageIfGrown, COLLECT_EVERY_MS);
  try {
    try {
      await listTreeChanges(
        options.git,
        ordered,
        (sha, changes, parents) => {
          // Records name their commit by its place in `ordered`; the listing skips only unlisted ones.
          while (place < ordered.length && ordered.at(place) !== sha) place++;
          if (place === ordered.length) throw new Error(`git listed a commit it was not asked for: ${sha}`);
          if (parents > 1) merges[place >> 3]! |= 1 << (place & 7);
          for (const index of blobs.record(place++, changes, requests)) gate.introduced(index);
          if (requests.held >= REQUEST_BATCH) requests.flush();
        },
        (sha) => {
          unlisted++;
          suspects.push(sha);
        },
        'combined',
        undefined,
        { pace },
      );
      requests.flush();
    } catch (e) {
      stream.abort(); // else `cat-file` waits for requests and keeps the process alive
      throw e;
    }
    await stream.finish();
  } finally {
    clearInterval(collecting);
  }
  gate.flush();
  // Where missing blobs can be is known when the scan listed every commit the refs reach
  // (pathsNamingMissing): not in a range, nor beside a cache, where older commits brought them in.
  const everyBlobListed = unlisted === 0 && options.wholeHistory === true;
  const pathsNamingMissing =
    everyBlobListed && blobs.missingCount > 0
      ? requests.pathsNumbered(blobs.pathsNamingMissing())
      : undefined;
  const pathNames = (numbers: ReadonlySet<number>) => requests.pathNames(numbers);
  return { ordered, suspects, merges, everyBlobListed, pathsNamingMissing, pathNames };
}

/**
 * Which merges can name a missing blob: only one of the commits that brought one in and their
 * descendants (descendants.ts), when walking the history to find those is likely to cost less
 * than listing every clean merge once more: the history walks in one segment, and at most half
 * the clean merges come later in the listing (oldest first) than the first commit that brought
 * one in (a descendant is almost always dated after it; the guess only decides whether to walk).
 * On git/git (56,000 merges; its 38 missing blobs brought in by 8 recent commits with 25 merges
 * after them) the listing of merges took 10.5 s of git's time, the walk 2-3 s. Only when the scan
 * read every commit the refs reach: a scan of part of a history (a range, new commits since a
 * cache) did not list the older commits that may have brought a missing blob in.
 */
async function mergesNearMissing(
  git: GitRunner,
  ordered: ReversedCommits,
  blobs: BlobTable,
  cleanMerges: Int32Array,
  cleanMergeCount: number,
): Promise<((sha: string) => boolean) | null> {
  if (ordered.length > REV_LIST_SEGMENT) return null;
  const roots = blobs.commitsBringingMissing();
  if (roots.length === 0) return null;
  // A loop, not Math.min(...roots): in a blobless clone every commit brings in a missing blob.
  let first = roots[0]!;
  for (const place of roots) first = Math.min(first, place);
  let later = 0;
  for (let i = 0; i < cleanMergeCount; i++) if (cleanMerges[i]! > first) later++;
  if (later * 2 > cleanMergeCount) return null;
  const graph = await descendantsOf(
    git,
    roots.map((place) => ordered.at(place)),
  );
  if (graph === null || graph.size !== ordered.length) return null;
  for (let i = 0; i < ordered.length; i++) if (!graph.reachable(ordered.at(i))) return null;
  return graph.descends;
}

/**
 * The paths to limit the merges' per-parent listing to: `paths`, or when there are more than
 * MAX_LIMIT_PATHS, their first components (a superset: a directory's name limits a listing to
 * everything under it).
 */
export function limitingPaths(paths: readonly string[]): string[] {
  if (paths.length <= MAX_LIMIT_PATHS) return [...paths];
  return [...new Set(paths.map((path) => path.split('/', 1)[0]!))];
}

/**
 * In a damaged repository, git's diff of a merge reads each parent's version of every path that
 * differs from that parent (for rename detection), not just the paths `-c` lists; a missing one
 * makes the merge unreadable. So the merges the gate let through are listed once more, per parent,
 * and any that names a missing object goes the careful way too.
 *
 * When every commit was listed, only the paths where a missing blob was ever listed can name one
 * (BlobTable.pathsNamingMissing), and the listing is limited to them (limitingPaths): on rails 47 s
 * of git's time for every path of 42,315 merges. Only the clean merges are given to it, in two
 * parts at once. On git/git (56,000 merges, 38 missing blobs at 175 paths) it took 69 s, then 9.4 s
 * with merges alone at 16 first components, in one process. Each merge's ids are looked up as they
 * are listed, not kept: on rails (42,315 merges, 14 million ids in their per-parent diffs, 7 missing
 * blobs) keeping them took 2.1 GB. What is kept grows with the damage: the ids the table does not
 * know (blobs only unreadable commits brought in), asked of `git cat-file --batch-check` at the
 * end, and the merges found touching a missing one.
 *
 * Such a merge is most likely unreadable when a missing blob is on a side of a parent's diff that
 * git reads: an added or deleted file (rename detection reads their sizes), or one that becomes a
 * symlink or back. Where every missing blob it names is a side of a file changed in place against
 * a parent (the merge took one side's version: git's combined diff shows no such path and reads
 * neither), git reads it (on rails 52 of 87 such merges): those are diffed with the other commits
 * (`withOthers`), whose runs find and retry alone any that fails; the rest `alone`.
 */
async function mergesTouchingMissingBlobs(
  options: HistoryScanOptions,
  clean: CommitList,
  blobs: BlobTable,
  paths: readonly string[] | undefined,
): Promise<{ alone: string[]; withOthers: string[] }> {
  /** Merge -> whether a missing blob is on a side of its diffs that git reads (see above). */
  const touching = new Map<string, boolean>();
  const unlisted: string[] = [];
  /** Ids the table does not know -> the merges that name them. */
  const unknown = new Map<string, string[]>();
  const listPart = (git: GitRunner, part: CommitList) => {
    let lastRead = '';
    return listTreeChanges(
      git,
      part,
      (sha, changes) => {
        if (lastRead === sha) return; // printed once per parent; already known to be read by git
        const strangers = new Set<string>();
        for (const change of changes) {
          // In a per-parent listing a change has one old side: that parent's.
          const inPlace =
            change.newBlob !== null && change.oldBlobs.length === 1 && change.diffedAgainst[0] === true;
          for (const id of change.newBlob === null ? change.oldBlobs : [change.newBlob, ...change.oldBlobs]) {
            const index = blobs.indexOf(id);
            if (index === undefined) {
              strangers.add(id);
            } else if (blobs.state[index] === BlobState.Missing) {
              const merge = ownString(sha);
              if (!inPlace) {
                lastRead = merge;
                touching.set(merge, true);
                return;
              }
              if (!touching.has(merge)) touching.set(merge, false);
            }
          }
        }
        for (const id of strangers) {
          const merges = unknown.get(id);
          if (merges === undefined) unknown.set(ownString(id), [ownString(sha)]);
          else if (merges.at(-1) !== sha) merges.push(ownString(sha));
        }
      },
      (sha) => unlisted.push(sha),
      'per-parent',
      undefined,
      { paths },
    );
  };
  // The cat-file stream has ended: the cores are free for a listing each (contiguous parts, as the
  // diff pass splits its commits). When one fails, the others are ended too.
  const parts = Math.max(1, Math.min(options.parallelism, MAX_MERGE_LISTINGS, clean.length));
  const size = Math.ceil(clean.length / parts);
  const stop = new AbortController();
  const signal =
    options.git.signal === undefined ? stop.signal : AbortSignal.any([options.git.signal, stop.signal]);
  const listings = Array.from({ length: parts }, (_, i) =>
    listPart(
      { ...options.git, signal },
      new CommitList(
        clean.slice(Math.min(clean.length, i * size), Math.min(clean.length, (i + 1) * size)),
        clean.width,
      ),
    ),
  );
  await Promise.all(
    listings.map((listing) =>
      listing.catch((e: unknown) => {
        stop.abort();
        throw e;
      }),
    ),
  );
  if (unknown.size > 0) {
    const check = await runGit(
      options.git,
      [...BOUNDED_PACK_MEMORY, 'cat-file', '--batch-check'],
      [...unknown.keys()].map((id) => `${id}\n`).join(''),
    );
    for (const line of check.stdout.toString('latin1').split('\n')) {
      if (!line.endsWith(' missing')) continue;
      for (const merge of unknown.get(line.slice(0, line.indexOf(' '))) ?? []) touching.set(merge, true);
    }
  }
  const alone = new Set(unlisted);
  for (const [merge, read] of touching) if (read) alone.add(merge);
  const withOthers = [...touching.keys()].filter((merge) => !alone.has(merge));
  return { alone: [...alone], withOthers };
}
