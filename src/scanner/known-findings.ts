import { fingerprintOf } from './fingerprint.js';
import type { FindingPlace } from './scan-cache.js';
import { type LinePlace, readFindingLines } from './sources/finding-lines.js';
import { CommitList, type HistoryScanOptions, scanCommitsByDiff } from './sources/history.js';

/**
 * The commits a cache records as having findings, read again so that their secrets are in memory
 * for the credential checks. A whole-history cached re-scan is mostly this read, and a commit with
 * one finding may also be a tree-wide reformatting, so the cost must follow the findings, not the
 * commits: each recorded line is read straight from the commit's file (finding-lines.ts: one
 * `git cat-file`, no diff). A commit where that does not give back every recorded finding is read
 * through git's diff as before, but only at the paths of its findings.
 *
 * A path-limited diff can show more lines as added than the full one (a file renamed from a path
 * outside the limit reads as new), so only the findings the cache recorded are taken. It could in
 * principle show fewer (a limit can pair a rename the full diff would not), so a commit where any
 * recorded finding is not found again is read once more, whole, with nothing filtered.
 */
export class KnownFindings {
  private readonly expected = new Map<string, Set<string>>();

  constructor(private readonly known: Map<string, FindingPlace[]>) {
    for (const [sha, places] of known) {
      this.expected.set(
        sha,
        new Set(places.map(([rule, path, line]) => fingerprintOf(rule, sha, path, line))),
      );
    }
  }

  get size(): number {
    return this.known.size;
  }

  /** Whether a finding of a re-read commit is kept: one the cache recorded (any, for other commits). */
  accepts(commit: string, fingerprint: string): boolean {
    const expected = this.expected.get(commit);
    return expected === undefined || expected.has(fingerprint);
  }

  /** Reads the commits again; `found` says whether a fingerprint was found. Returns the unreadable. */
  async read(
    reading: HistoryScanOptions,
    found: (fingerprint: string) => boolean,
    onCommitDone: () => void,
  ): Promise<string[]> {
    if (this.known.size === 0) return [];
    // Each recorded line straight from the commit's file: no diff at all.
    const lines = new Map<string, LinePlace>();
    for (const [commit, places] of this.known)
      for (const [, path, line] of places) lines.set(`${commit}\0${path}\0${line}`, { commit, path, line });
    await readFindingLines(reading, [...lines.values()]);
    const left = new Map([...this.known].filter(([sha]) => !this.allFound(sha, found)));
    for (let i = left.size; i < this.known.size; i++) onCommitDone();
    if (left.size === 0) return [];
    // The rest through git's diff, limited to the recorded paths.
    const paths = [...new Set([...left.values()].flatMap((places) => places.map(([, path]) => path)))];
    const unreadable = await scanCommitsByDiff(
      reading,
      CommitList.of([...left.keys()]),
      onCommitDone,
      1,
      paths,
    );
    const unreadableSet = new Set(unreadable);
    const missed = [...left.keys()].filter((sha) => !unreadableSet.has(sha) && !this.allFound(sha, found));
    if (missed.length === 0) return unreadable;
    for (const sha of missed) this.expected.delete(sha);
    return [...unreadable, ...(await scanCommitsByDiff(reading, CommitList.of(missed), () => {}, 1))];
  }

  private allFound(sha: string, found: (fingerprint: string) => boolean): boolean {
    return [...(this.expected.get(sha) ?? [])].every(found);
  }
}
