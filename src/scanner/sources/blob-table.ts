import { BlobIds } from './blob-ids.js';
import { RecordLog } from './record-log.js';
import type { PathOrderedRequests } from './request-order.js';
import type { TreeChange } from './tree-changes.js';
import { grown } from './typed-arrays.js';

/**
 * Blob ids held in memory (BlobIds), the rest in a file: rails (292,555 blobs) and git/git (262,343)
 * put theirs there twice, in the same time; with 16,384 their reports were the same, byte for byte.
 */
const IDS_IN_MEMORY = 1 << 17;

export enum BlobState {
  Pending = 0,
  /** Holds no detection line (blob-gate.ts). */
  Clean = 1,
  /** Holds a detection line (or an over-long line with a keyword). */
  Detection = 2,
  /**
   * The lines that differ from one earlier version (`pairedWith`) hold no detection line; the lines
   * shared with it were not looked at: clean as the new side of a diff against that version.
   */
  CleanAgainstPair = 3,
  Missing = 4,
}

/** The paths (by number) a commit's diff needs to see, and how many of its paths it does not. */
export interface PathsToDiff {
  paths: number[];
  leftOut: number;
}

/** What the gate's figures say of one commit's diff (BlobTable.decideCommits). */
export enum CommitVerdict {
  /** Provably adds no detection line: git's diff is not needed. */
  Clean = 0,
  /** May add a detection line: git's diff decides. */
  MayAddDetectionLine = 1,
  /**
   * Names a missing blob: git's diff will most likely fail on it, and is run for it alone
   * (history.ts: one failure in a batch costs the batch's run up to it, and two more runs).
   */
  NamesMissingBlob = 2,
}

/**
 * Blob ids interned as small integers, each requested once from the `git cat-file` stream, with
 * each one's state, and for each blob the versions it replaced in the commit that first brought it
 * in (its references for the gate).
 *
 * Each commit's record: what it changed, as blob indexes: for each path, its number (atPath), the
 * new blob (or -1 for a deletion), how many old blobs follow, then those (one per parent that had the path), each stored
 * as `-(index + 1)` when git does not diff the new blob against it (a file became a symlink or
 * back). Each names its commit by the number the caller gave it (its place in the listing), not by
 * its id. They are read once, in order, after every blob is gated, so they go to a RecordLog (a
 * temporary file past 4 MB: numbers only): an object and a string a commit came to 16 MB on rails'
 * 160,769 commits, and even as typed arrays they grew with history (about 40 bytes a commit).
 */
export class BlobTable {
  private readonly ids: BlobIds;
  state = new Uint8Array(4096);
  pairedWith = new Int32Array(4096);
  /**
   * For blobs brought in by a commit listed already and not gated yet, the versions they replace
   * (references): 0 for none known, -1 for no version, else 1 + the first one; a blob with several
   * (a merge's path) has them all in `moreReferences`. Typed arrays, not a Map of small arrays: a
   * Map entry set and deleted for every blob left the old generation tens of MB of discarded hash
   * tables and arrays to collect (rails).
   */
  private firstReference = new Int32Array(4096);
  private readonly moreReferences = new Map<number, number[]>();
  /** Scratch room for one record: its commit, then its entries. */
  private entries = new Int32Array(1 << 10);
  missingCount = 0;
  private readonly log = new RecordLog();

  /**
   * `idsInMemory`: ids held in memory before the rest go to a file (BlobIds). A million blobs held
   * 40 MB of ids and their table in memory; at 131,072, 4 MB whatever the history's length.
   */
  constructor(idsInMemory = IDS_IN_MEMORY) {
    this.ids = new BlobIds(idsInMemory);
  }

  /** How many commits are recorded. */
  get records(): number {
    return this.log.records;
  }

  indexOf(id: string): number | undefined {
    const index = this.ids.find(id);
    return index === -1 ? undefined : index;
  }

  /**
   * Interns a commit's blobs and requests the ones never seen (a version it replaces is usually
   * known already, as the new blob of an older commit), and records what it changed. Returns the
   * blobs this commit is the first to bring in.
   */
  record(commit: number, changes: TreeChange[], stream: PathOrderedRequests): number[] {
    this.entries[0] = commit;
    let length = 1;
    const introduced: number[] = [];
    for (const change of changes) {
      if (length + 3 + change.oldBlobs.length > this.entries.length) {
        this.entries = grown(this.entries, length + 3 + change.oldBlobs.length);
      }
      const entries = this.entries;
      const path = stream.atPath(change.path);
      const added = change.newBlob === null ? -1 : this.request(change.newBlob, stream);
      entries[length++] = path;
      entries[length++] = added;
      entries[length++] = change.oldBlobs.length;
      const olds = length;
      let references = 0;
      for (let k = 0; k < change.oldBlobs.length; k++) {
        const old = this.request(change.oldBlobs[k]!, stream);
        entries[length++] = change.diffedAgainst[k] ? old : -(old + 1);
        if (change.diffedAgainst[k]) references++;
      }
      if (added !== -1 && this.state[added] === BlobState.Pending && this.firstReference[added] === 0) {
        // The first reference found in place: a view and a filtered copy for every blob brought in
        // were a tenth of all a scan allocated (eslint: 35 of 376 MB, collected by the young
        // generation's scavenges). Only a blob with several references keeps them all.
        let first = -1;
        for (let at = olds; at < length && first === -1; at++) if (entries[at]! >= 0) first = entries[at]!;
        this.firstReference[added] = references === 0 ? -1 : first + 1;
        if (references > 1) {
          this.moreReferences.set(added, Array.from(entries.subarray(olds, length).filter((o) => o >= 0)));
        }
        introduced.push(added);
      }
    }
    this.log.append(this.entries, length);
    return introduced;
  }

  /**
   * Calls `decide` with each recorded commit, in the order recorded, and what git's diff of it may
   * do (verdictOf). Once every blob is gated.
   */
  decideCommits(
    decide: (commit: number, verdict: CommitVerdict, pathsToDiff: () => PathsToDiff) => void,
  ): void {
    this.log.readAll((numbers, from, to) => {
      decide(numbers[from]!, this.verdictOf(numbers, from + 1, to), () =>
        this.pathsToDiff(numbers, from + 1, to),
      );
    });
  }

  /** Lets the records and the ids go (their files, when they needed them). */
  close(): void {
    this.log.close();
    this.ids.close();
  }

  /**
   * Whether git's diff of the commit whose entries are `entries[from, to)` may fail on a missing
   * blob, else whether it may add a detection line. git's line diff (xdiff) trims the lines two versions share at
   * both ends before it diffs, and its later sliding of a change only swaps lines of equal content,
   * so every line it calls added has the content of a line outside the shared ends: the region the
   * gate read for a CleanAgainstPair blob.
   */
  private verdictOf(entries: Int32Array, from: number, end: number): CommitVerdict {
    let verdict = CommitVerdict.Clean;
    for (let i = from; i < end; ) {
      const added = entries[i + 1]!;
      const oldCount = entries[i + 2]!;
      const stored = entries.subarray(i + 3, i + 3 + oldCount);
      i += 3 + oldCount;
      if (stored.some((o) => this.state[o < 0 ? -o - 1 : o] === BlobState.Missing)) {
        return CommitVerdict.NamesMissingBlob;
      }
      if (added === -1) continue;
      if (this.state[added] === BlobState.Missing) return CommitVerdict.NamesMissingBlob;
      if (this.mayAddDetectionLine(added, stored)) verdict = CommitVerdict.MayAddDetectionLine;
    }
    return verdict;
  }

  /**
   * Whether git's diff of new blob `added` against the versions `stored` (a record's, as stored)
   * may call a detection line added. The versions git diffs it against are the ones stored as is.
   */
  private mayAddDetectionLine(added: number, stored: Int32Array): boolean {
    const state = this.state[added];
    return (
      (state !== BlobState.Clean && state !== BlobState.CleanAgainstPair) ||
      (state === BlobState.CleanAgainstPair && !stored.includes(this.pairedWith[added]!))
    );
  }

  /**
   * The paths (by number) git's diff of a commit that is not a merge needs to see to call the same
   * lines added as its whole diff does: every path but the files changed in place whose new version
   * provably adds no detection line. Rename detection (-M; neither -C nor -B) pairs only added files
   * with deleted ones, so with every added and deleted path kept it finds the same renames, and past
   * its limit gives up the same way; a file changed in place is diffed on its own. A file that
   * becomes a symlink or back (stored negated: git shows a deletion and an addition) is kept too.
   */
  private pathsToDiff(entries: Int32Array, from: number, end: number): PathsToDiff {
    const paths: number[] = [];
    let leftOut = 0;
    for (let i = from; i < end; ) {
      const added = entries[i + 1]!;
      const oldCount = entries[i + 2]!;
      const stored = entries.subarray(i + 3, i + 3 + oldCount);
      const inPlace = added !== -1 && oldCount > 0 && stored.every((o) => o >= 0);
      if (!inPlace || this.mayAddDetectionLine(added, stored)) paths.push(entries[i]!);
      else leftOut++;
      i += 3 + oldCount;
    }
    return { paths, leftOut };
  }

  /**
   * The numbers of the paths where any record names a missing blob, new or old. Every (path, blob)
   * of a listed commit's tree was brought in by some listed commit at that path (a root commit
   * lists all its files; a merge's version equal to a parent's came from that parent's side), so,
   * when no commit went unlisted, these are the only paths where any tree holds a missing blob.
   */
  pathsNamingMissing(): Set<number> {
    const paths = new Set<number>();
    const missing = (o: number) => this.state[o < 0 ? -o - 1 : o] === BlobState.Missing;
    this.log.readAll((entries, from, end) => {
      for (let i = from + 1; i < end; ) {
        const added = entries[i + 1]!;
        const oldCount = entries[i + 2]!;
        if ((added !== -1 && missing(added)) || entries.subarray(i + 3, i + 3 + oldCount).some(missing))
          paths.add(entries[i]!);
        i += 3 + oldCount;
      }
    });
    return paths;
  }

  /**
   * The commits (by number) whose record brings in a missing blob at some path. When no commit went
   * unlisted, every tree that holds a missing blob is one of theirs or a descendant's (as for
   * pathsNamingMissing: every (path, blob) of a tree was brought in by a listed commit).
   */
  commitsBringingMissing(): number[] {
    const commits: number[] = [];
    this.log.readAll((entries, from, end) => {
      for (let i = from + 1; i < end; i += 3 + entries[i + 2]!) {
        const added = entries[i + 1]!;
        if (added !== -1 && this.state[added] === BlobState.Missing) {
          commits.push(entries[from]!);
          return;
        }
      }
    });
    return commits;
  }

  /**
   * The versions blob `index` replaces in the commit that first brought it in, while it waits to
   * be gated; undefined before that commit is listed, and once forgotten.
   */
  referencesOf(index: number): readonly number[] | undefined {
    const first = this.firstReference[index]!;
    if (first === 0) return undefined;
    if (first === -1) return [];
    return this.moreReferences.get(index) ?? [first - 1];
  }

  /** Blob `index` is gated (or missing): its references are no longer needed. */
  forgetReferences(index: number): void {
    if (this.firstReference[index] === 0) return;
    this.firstReference[index] = 0;
    this.moreReferences.delete(index);
  }

  private request(id: string, stream: PathOrderedRequests): number {
    const size = this.ids.size;
    const index = this.ids.intern(id);
    if (index < size) return index;
    if (index >= this.state.length) {
      this.state = grown(this.state, index + 1);
      this.pairedWith = grown(this.pairedWith, index + 1);
      this.firstReference = grown(this.firstReference, index + 1);
    }
    stream.request(id, index);
    return index;
  }
}
