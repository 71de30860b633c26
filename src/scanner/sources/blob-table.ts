import type { BlobStream } from './blob-stream.js';
import type { TreeChange } from './tree-changes.js';

export enum BlobState {
  Pending = 0,
  /** Holds no detection line (blob-gate.ts). */
  Clean = 1,
  /** Holds a detection line (or an over-long line with a keyword). */
  Detection = 2,
  /**
   * The lines that differ from one earlier version (`pairedWith`) hold no detection line, but the
   * lines shared with it were not looked at: clean as the new side of a diff against that version.
   */
  CleanAgainstPair = 3,
  Missing = 4,
}

/**
 * What one commit changed, as blob indexes: for each path, the new blob (or -1 for a deletion),
 * how many old blobs follow, then those (one per parent that had the path).
 */
export interface CommitRecord {
  sha: string;
  entries: number[];
  /** The highest blob index the commit mentions: it is decidable once that blob is answered. */
  lastRequest: number;
}

/**
 * Blob ids interned as small integers in the order they were requested from `git cat-file` (which
 * answers in that order), with each one's state and the earlier versions it may be compared to.
 */
export class BlobTable {
  private readonly index = new Map<string, number>();
  state = new Uint8Array(4096);
  pairedWith = new Int32Array(4096);
  /** For each blob not yet answered, the earlier versions (same path, each parent) it replaces. */
  readonly references = new Map<number, number[]>();
  /** How many requests have been answered. */
  answered = 0;
  missingCount = 0;

  indexOf(id: string): number | undefined {
    return this.index.get(id);
  }

  /** Interns a commit's blobs, requesting the ones never seen (old versions first: they are references). */
  record(sha: string, changes: TreeChange[], stream: BlobStream): CommitRecord {
    const entries: number[] = [];
    let lastRequest = -1;
    for (const change of changes) {
      const olds = change.oldBlobs.map((id) => this.request(id, stream, []));
      const added = change.newBlob === null ? -1 : this.request(change.newBlob, stream, olds);
      entries.push(added, olds.length, ...olds);
      for (const i of olds) lastRequest = Math.max(lastRequest, i);
      lastRequest = Math.max(lastRequest, added);
    }
    return { sha, entries, lastRequest };
  }

  /**
   * Whether git's diff of this commit may add a detection line, or may fail on a missing blob. git's
   * line diff (xdiff) trims the lines two versions share at both ends before it diffs, and its later
   * sliding of a change only swaps lines of equal content, so every line it calls added has the
   * content of a line outside the shared ends: the region the gate read for a CleanAgainstPair blob.
   */
  mayAddDetectionLine(record: CommitRecord): boolean {
    const { entries } = record;
    for (let i = 0; i < entries.length; ) {
      const added = entries[i]!;
      const oldCount = entries[i + 1]!;
      const olds = entries.slice(i + 2, i + 2 + oldCount);
      i += 2 + oldCount;
      if (olds.some((o) => this.state[o] === BlobState.Missing)) return true;
      if (added === -1) continue;
      const state = this.state[added];
      if (state === BlobState.Missing || state === BlobState.Detection) return true;
      if (state === BlobState.CleanAgainstPair && !olds.includes(this.pairedWith[added]!)) return true;
    }
    return false;
  }

  private request(id: string, stream: BlobStream, references: number[]): number {
    const found = this.index.get(id);
    if (found !== undefined) return found;
    const index = this.index.size;
    this.index.set(id, index);
    if (index >= this.state.length) this.grow();
    if (references.length > 0) this.references.set(index, references);
    stream.request(id);
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
