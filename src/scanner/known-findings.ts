import { fingerprintOf } from './fingerprint.js';
import type { FindingPlace } from './scan-cache.js';
import { CommitList, type HistoryScanOptions, scanCommitsByDiff } from './sources/history.js';

/**
 * The commits a cache records as having findings, read again so that their secrets are in memory
 * for the credential checks: through git's diff as before, but only at the paths of those findings.
 * A whole-history cached re-scan is mostly this read, and a commit with one finding may also be a
 * tree-wide reformatting: limiting git to a few paths makes it cost about the findings' files.
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
    const paths = [...new Set([...this.known.values()].flatMap((places) => places.map(([, path]) => path)))];
    // git reads the limit from stdin a line at a time (and drops a CR before the LF).
    const limit = paths.some((path) => /[\r\n]/.test(path)) ? undefined : paths;
    const commits = CommitList.of([...this.known.keys()]);
    const unreadable = await scanCommitsByDiff(reading, commits, onCommitDone, 1, limit);
    const unreadableSet = new Set(unreadable);
    const missed = [...this.expected]
      .filter(([sha, fingerprints]) => !unreadableSet.has(sha) && [...fingerprints].some((f) => !found(f)))
      .map(([sha]) => sha);
    if (missed.length === 0) return unreadable;
    for (const sha of missed) this.expected.delete(sha);
    return [...unreadable, ...(await scanCommitsByDiff(reading, CommitList.of(missed), () => {}, 1))];
  }
}
