import { ownString } from './own-string.js';

/** Where blob requests go: a `git cat-file --batch` stream (blob-stream.ts), or something in between. */
export interface BlobRequester {
  request(id: string, index: number): void;
}

/**
 * Holds blob requests back and sends them grouped by path, each path's versions oldest first.
 *
 * A pack stores a file's versions as one delta chain (the newest whole, each older one a delta
 * against a newer), and `git cat-file` keeps the versions it rebuilt in a small cache. Asked in the
 * history's order, it rebuilds hundreds of files' chains in turn, each evicting the others, and
 * rebuilds each version from far down its chain; asked one file at a time, each version is one delta
 * from the one before, still cached. Measured on a 24,000-commit history of long files, `cat-file`
 * alone: 4.4 s in history order, 1.5 s by path, and 8 MB of cache did as well as 96 MB; on a
 * 39,000-commit one, 2.7 s and 2.2 s. The caller sends them in batches (blob-first.ts), so that
 * reading overlaps the listing; the first version of a file in a batch is then rebuilt from its
 * chain again, and often gated whole (the version before it has left the gate's memory).
 */
export class PathOrderedRequests implements BlobRequester {
  private readonly pathIds = new Map<string, number>();
  private ids: string[] = [];
  private indexes: number[] = [];
  private paths: number[] = [];
  private currentPath = 0;

  constructor(private readonly stream: BlobRequester) {}

  /** The path of the requests that follow, until the next call; returns its number. */
  atPath(path: string): number {
    let id = this.pathIds.get(path);
    if (id === undefined) {
      id = this.pathIds.size;
      this.pathIds.set(ownString(path), id); // a key of its own, not a slice holding git's output
    }
    this.currentPath = id;
    return id;
  }

  /** The paths with these numbers (atPath). */
  pathsNumbered(numbers: ReadonlySet<number>): string[] {
    return [...this.pathIds].filter(([, id]) => numbers.has(id)).map(([path]) => path);
  }

  request(id: string, index: number): void {
    this.ids.push(id);
    this.indexes.push(index);
    this.paths.push(this.currentPath);
  }

  /** How many requests are held. */
  get held(): number {
    return this.ids.length;
  }

  /** Sends every held request: by path, and in the order they were made within a path. */
  flush(): void {
    const order = Array.from(this.ids, (_, k) => k);
    const paths = this.paths;
    order.sort((a, b) => paths[a]! - paths[b]! || a - b);
    for (const k of order) this.stream.request(this.ids[k]!, this.indexes[k]!);
    this.ids = [];
    this.indexes = [];
    this.paths = [];
  }
}
