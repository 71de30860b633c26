import { ownString } from './own-string.js';
import type { PathOrderedRequests } from './request-order.js';
import type { TreeChange } from './tree-changes.js';

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

/**
 * What one commit changed, as blob indexes: for each path, the new blob (or -1 for a deletion),
 * how many old blobs follow, then those (one per parent that had the path), each stored as
 * `-(index + 1)` when git does not diff the new blob against it (a file became a symlink or back).
 */
export interface CommitRecord {
  sha: string;
  /** Where its entries are in the table's pool: [start, end). */
  start: number;
  end: number;
}

/**
 * Blob ids interned as small integers, each requested once from one of the `git cat-file` streams,
 * with each one's state, and for each blob the versions it replaced in the commit that first brought
 * it in (its references for the gate).
 */
export class BlobTable {
  private readonly index = new Map<string, number>();
  state = new Uint8Array(4096);
  pairedWith = new Int32Array(4096);
  /** For blobs brought in by a commit listed already and not gated yet: the versions they replace. */
  readonly replaces = new Map<number, number[]>();
  missingCount = 0;
  /**
   * Every record's entries, one after the other: one typed array rather than a small array a
   * commit, whose spare capacity came to 17 MB on a 39,000-commit history.
   */
  private pool = new Int32Array(1 << 16);
  private poolLength = 0;

  indexOf(id: string): number | undefined {
    return this.index.get(id);
  }

  /**
   * Interns a commit's blobs and requests the ones never seen (a version it replaces is usually
   * known already, as the new blob of an older commit). Returns the record and the blobs this
   * commit is the first to bring in.
   */
  record(
    sha: string,
    changes: TreeChange[],
    stream: PathOrderedRequests,
  ): { record: CommitRecord; introduced: number[] } {
    const entries: number[] = [];
    const introduced: number[] = [];
    for (const change of changes) {
      stream.atPath(change.path);
      const added = change.newBlob === null ? -1 : this.request(change.newBlob, stream);
      const olds = change.oldBlobs.map((id) => this.request(id, stream));
      entries.push(added, olds.length, ...olds.map((o, k) => (change.diffedAgainst[k] ? o : -(o + 1))));
      if (added !== -1 && this.state[added] === BlobState.Pending && !this.replaces.has(added)) {
        this.replaces.set(
          added,
          olds.filter((_, k) => change.diffedAgainst[k]),
        );
        introduced.push(added);
      }
    }
    if (this.poolLength + entries.length > this.pool.length) {
      const grown = new Int32Array(Math.max(this.pool.length * 2, this.poolLength + entries.length));
      grown.set(this.pool.subarray(0, this.poolLength));
      this.pool = grown;
    }
    const start = this.poolLength;
    this.pool.set(entries, start);
    this.poolLength += entries.length;
    return { record: { sha: ownString(sha), start, end: this.poolLength }, introduced };
  }

  /**
   * Whether git's diff of this commit may add a detection line, or may fail on a missing blob. git's
   * line diff (xdiff) trims the lines two versions share at both ends before it diffs, and its later
   * sliding of a change only swaps lines of equal content, so every line it calls added has the
   * content of a line outside the shared ends: the region the gate read for a CleanAgainstPair blob.
   */
  mayAddDetectionLine(record: CommitRecord): boolean {
    const entries = this.pool;
    for (let i = record.start; i < record.end; ) {
      const added = entries[i]!;
      const oldCount = entries[i + 1]!;
      const stored = entries.slice(i + 2, i + 2 + oldCount);
      i += 2 + oldCount;
      if (stored.some((o) => this.state[o < 0 ? -o - 1 : o] === BlobState.Missing)) return true;
      const olds = stored.filter((o) => o >= 0); // the versions git diffs the new blob against
      if (added === -1) continue;
      const state = this.state[added];
      if (state !== BlobState.Clean && state !== BlobState.CleanAgainstPair) return true;
      if (state === BlobState.CleanAgainstPair && !olds.includes(this.pairedWith[added]!)) return true;
    }
    return false;
  }

  private request(id: string, stream: PathOrderedRequests): number {
    const found = this.index.get(id);
    if (found !== undefined) return found;
    const index = this.index.size;
    this.index.set(ownString(id), index);
    if (index >= this.state.length) this.grow();
    stream.request(id, index);
    return index;
  }

  private grow(): void {
    const state = new Uint8Array(this.state.length * 2);
    state.set(this.state);
    this.state = state;
    const paired = new Int32Array(this.pairedWith.length * 2);
    paired.set(this.pairedWith);
    this.pairedWith = paired;
  }
}
