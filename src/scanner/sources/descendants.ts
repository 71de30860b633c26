import { BlobIds } from './blob-ids.js';
import { COMMIT_WALK_PACK_MEMORY, type GitRunner, gitLines } from './git.js';
import { eachLine, walkCommitsNatively } from './native-commit-walk.js';
import { grown } from './typed-arrays.js';

/** What one walk of the commit graph tells of a commit. */
export interface Descendants {
  /** How many commits are reachable from the refs. */
  size: number;
  /** Whether the commit is reachable from a ref. */
  reachable(sha: string): boolean;
  /** Whether the commit is one of the roots or descends from one. */
  descends(sha: string): boolean;
}

/**
 * The commits reachable from any ref that are one of `roots` or descend from one; null when git
 * could not walk the history (a damaged repository may have a commit it cannot read).
 *
 * The graph comes from one walk of every commit with its parents (the native reader's, else `git
 * rev-list --all --parents`), held in Node as numbers only: each commit's id once (blob-ids.ts: 20
 * bytes and its table) and each parent link as two 32-bit numbers, about 50 bytes a commit (10 MB
 * on git/git's 203,352 commits), let go when the answer is made. git keeps an object for every
 * commit it meets (about 330 bytes each): the caller walks this way only histories of one rev-list
 * segment (history.ts), where that is bounded. On git/git the native walk took 1.3 s against git's
 * 1.9 s.
 */
export async function descendantsOf(git: GitRunner, roots: readonly string[]): Promise<Descendants | null> {
  const graph = new ParentLinks();
  const walked = await walkCommitsNatively(git, true);
  if (walked !== null) {
    try {
      eachLine(walked, (line) => graph.add(line));
    } finally {
      walked.close();
    }
  } else {
    const walk = await gitLines(git, [...COMMIT_WALK_PACK_MEMORY, 'rev-list', '--all', '--parents'], (line) =>
      graph.add(line),
    );
    if (walk.code !== 0) return null;
  }
  const marked = graph.descendants(roots);
  return {
    size: graph.ids.size,
    reachable: (sha) => graph.ids.find(sha) !== -1,
    descends: (sha) => {
      const index = graph.ids.find(sha);
      return index !== -1 && marked[index] === 1;
    },
  };
}

/** Every parent link of a history, by commit number (the order BlobIds gives them). */
class ParentLinks {
  readonly ids = new BlobIds();
  private children: Int32Array = new Int32Array(1 << 12);
  private parents: Int32Array = new Int32Array(1 << 12);
  private links = 0;

  /** One `rev-list --parents` line: a commit, then its parents. */
  add(line: string): void {
    const fields = line.split(' ');
    const child = this.ids.intern(fields[0]!);
    for (let i = 1; i < fields.length; i++) {
      if (this.links === this.children.length) {
        this.children = grown(this.children);
        this.parents = grown(this.parents);
      }
      this.children[this.links] = child;
      this.parents[this.links++] = this.ids.intern(fields[i]!);
    }
  }

  /** One byte a commit: 1 for the roots and every commit that descends from one. */
  descendants(roots: readonly string[]): Uint8Array {
    const count = this.ids.size;
    // Each commit's children, from the links (children of commit c: byChild[start[c], start[c + 1])).
    const start = new Int32Array(count + 1);
    for (let i = 0; i < this.links; i++) {
      const slot = this.parents[i]! + 1;
      start[slot] = start[slot]! + 1;
    }
    for (let c = 0; c < count; c++) start[c + 1] = start[c + 1]! + start[c]!;
    const filled = start.slice(0, count);
    const byChild = new Int32Array(this.links);
    for (let i = 0; i < this.links; i++) {
      const parent = this.parents[i]!;
      byChild[filled[parent]!] = this.children[i]!;
      filled[parent] = filled[parent]! + 1;
    }
    const marked = new Uint8Array(count);
    const queue = new Int32Array(count);
    let tail = 0;
    for (const root of roots) {
      const index = this.ids.find(root);
      if (index === -1 || marked[index] === 1) continue;
      marked[index] = 1;
      queue[tail++] = index;
    }
    for (let head = 0; head < tail; head++) {
      const commit = queue[head]!;
      for (let k = start[commit]!; k < start[commit + 1]!; k++) {
        const child = byChild[k]!;
        if (marked[child] === 1) continue;
        marked[child] = 1;
        queue[tail++] = child;
      }
    }
    return marked;
  }
}
