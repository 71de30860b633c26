import { changedRegion, DetectionLineGate } from './blob-gate.js';
import { type BlobSink, BlobStream } from './blob-stream.js';
import { BlobState, BlobTable, type CommitRecord } from './blob-table.js';
import { BOUNDED_PACK_MEMORY, runGit } from './git.js';
import { CommitList, type HistoryScanOptions, scanCommitsByDiff } from './history.js';
import { listTreeChanges } from './tree-changes.js';

/**
 * Blob-first scanning (see docs/ARCHITECTURE.md, "Why this design"). git's line diffs are the cost
 * of a scan, and almost no commit needs one: a commit can only yield a finding where it adds a
 * detection line (blob-gate.ts), and such a line is in one of the blobs the commit brings in. So:
 *
 * 1. list each commit's tree changes (`git log --raw`: no blob read, no diff);
 * 2. read each new blob once (`git cat-file --batch`) and ask the gate whether it holds a detection
 *    line, looking only at the lines that differ from a clean earlier version when one is at hand;
 * 3. run git's own diff (history.ts, the reference path) over just the commits that bring in such a
 *    blob, or that git could not list or read: their findings and unreadable commits are exactly
 *    what the diff path gives, and every other commit provably has none.
 */

/** Blobs kept to compare their next versions against (the oldest first out). */
const REFERENCE_CACHE_BYTES = 32 << 20;
/** Larger blobs are scanned whole as a stream, never held, and never kept as a reference. */
const WHOLE_BLOB_LIMIT = 8 << 20;
/** Fewer commits than this share one `git log -p`: the diff pass is short, start-up is not free. */
const MIN_DIFF_COMMITS_PER_PROCESS = 64;

export async function scanCommitsBlobFirst(
  options: HistoryScanOptions,
  commits: CommitList,
  onCommitDone: () => void,
): Promise<string[]> {
  if (commits.length === 0) return [];
  const blobs = new BlobTable();
  const commitsToDiff: string[] = [];
  const pending: CommitRecord[] = [];
  let next = 0;
  const clean: string[] = [];
  const decide = () => {
    // Answers come in request order, so every commit up to the last one answered is decidable.
    while (next < pending.length && pending[next]!.lastRequest < blobs.answered) {
      const record = pending[next]!;
      pending[next++] = undefined as unknown as CommitRecord; // let it go
      if (blobs.mayAddDetectionLine(record)) {
        commitsToDiff.push(record.sha);
      } else {
        onCommitDone();
        clean.push(record.sha);
      }
    }
  };
  const stream = new BlobStream(options.git, new GateSink(blobs, decide));

  // Oldest first, so a file's previous version is usually read, and still cached, before the next.
  await listTreeChanges(
    options.git,
    commits.reversed(),
    (sha, changes) => pending.push(blobs.record(sha, changes, stream)),
    (sha) => commitsToDiff.push(sha),
  );
  await stream.finish();
  decide();

  if (blobs.missingCount > 0) {
    commitsToDiff.push(...(await mergesTouchingMissingBlobs(options, clean, blobs)));
  }
  const diffList = CommitList.of(commitsToDiff);
  return scanCommitsByDiff(options, diffList, onCommitDone, MIN_DIFF_COMMITS_PER_PROCESS);
}

/** Takes `git cat-file` answers, runs the gate on each blob and records its state. */
class GateSink implements BlobSink {
  private readonly gate = new DetectionLineGate();
  private readonly cache = new Map<number, Buffer>();
  private cacheBytes = 0;
  private current = -1;
  private chunks: Buffer[] | null = null;

  constructor(
    private readonly blobs: BlobTable,
    private readonly onAnswer: () => void,
  ) {}

  start(_id: string, size: number): void {
    this.current = this.blobs.answered;
    this.gate.reset();
    this.chunks = size <= WHOLE_BLOB_LIMIT ? [] : null;
  }

  chunk(data: Buffer): void {
    if (this.chunks !== null)
      this.chunks.push(data); // a pipe's chunks are never reused
    else this.gate.push(data);
  }

  end(): void {
    const index = this.current;
    const { blobs } = this;
    if (this.chunks === null) {
      blobs.state[index] = this.gate.end() ? BlobState.Detection : BlobState.Clean;
    } else {
      const blob = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
      this.chunks = null;
      const reference = this.referenceFor(index);
      const [from, to] = reference === undefined ? [0, blob.length] : changedRegion(blob, reference.content);
      if (this.gate.scan(blob, from, to)) {
        blobs.state[index] = BlobState.Detection;
      } else if (reference === undefined || blobs.state[reference.index] === BlobState.Clean) {
        // Lines shared with a clean version are clean too: the whole blob is.
        blobs.state[index] = BlobState.Clean;
      } else {
        blobs.state[index] = BlobState.CleanAgainstPair;
        blobs.pairedWith[index] = reference.index;
      }
      this.remember(index, blob);
    }
    blobs.references.delete(index);
    this.answered();
  }

  missing(_id: string): void {
    this.blobs.state[this.blobs.answered] = BlobState.Missing;
    this.blobs.missingCount++;
    this.blobs.references.delete(this.blobs.answered);
    this.answered();
  }

  private answered(): void {
    this.blobs.answered++;
    this.onAnswer();
  }

  /** An earlier version still in memory, a clean one first: the lines it shares need no look. */
  private referenceFor(index: number): { index: number; content: Buffer } | undefined {
    let found: { index: number; content: Buffer } | undefined;
    for (const old of this.blobs.references.get(index) ?? []) {
      const content = this.cache.get(old);
      if (content === undefined) continue;
      if (this.blobs.state[old] === BlobState.Clean) return { index: old, content };
      found ??= { index: old, content };
    }
    return found;
  }

  private remember(index: number, blob: Buffer): void {
    this.cache.set(index, blob);
    this.cacheBytes += blob.length;
    for (const [old, content] of this.cache) {
      if (this.cacheBytes <= REFERENCE_CACHE_BYTES) break;
      this.cache.delete(old);
      this.cacheBytes -= content.length;
    }
  }
}

/**
 * In a damaged repository, git's diff of a merge reads each parent's version of every path that
 * differs from that parent (for rename detection), not just the paths `-c` lists; a missing one
 * makes the merge unreadable. So the merges the gate let through are listed once more, per parent,
 * and any that names a missing object goes the careful way too.
 */
async function mergesTouchingMissingBlobs(
  options: HistoryScanOptions,
  clean: string[],
  blobs: BlobTable,
): Promise<string[]> {
  const idsByMerge = new Map<string, Set<string>>();
  const unlisted: string[] = [];
  await listTreeChanges(
    options.git,
    CommitList.of(clean),
    (sha, changes) => {
      const ids = idsByMerge.get(sha) ?? new Set<string>();
      idsByMerge.set(sha, ids);
      for (const change of changes)
        for (const id of [...change.oldBlobs, change.newBlob ?? '']) if (id) ids.add(id);
    },
    (sha) => unlisted.push(sha),
    'per-parent',
  );
  const unknown = new Set<string>();
  for (const ids of idsByMerge.values())
    for (const id of ids) if (blobs.indexOf(id) === undefined) unknown.add(id);
  const check = await runGit(
    options.git,
    [...BOUNDED_PACK_MEMORY, 'cat-file', '--batch-check'],
    [...unknown].map((id) => `${id}\n`).join(''),
  );
  const missing = new Set(
    check.stdout
      .toString('latin1')
      .split('\n')
      .filter((line) => line.endsWith(' missing'))
      .map((line) => line.slice(0, line.indexOf(' '))),
  );
  const isMissing = (id: string) => {
    const index = blobs.indexOf(id);
    return index === undefined ? missing.has(id) : blobs.state[index] === BlobState.Missing;
  };
  const touching = [...idsByMerge].filter(([, ids]) => [...ids].some(isMissing)).map(([sha]) => sha);
  return [...unlisted, ...touching];
}
