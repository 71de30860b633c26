import { availableParallelism } from 'node:os';
import { PREFILTER } from './detect/prefilter.js';
import { ScanError } from './errors.js';
import { FindingCollector } from './finding-collector.js';
import { IncrementalScan } from './incremental.js';
import { KnownFindings } from './known-findings.js';
import type { FindingPlace } from './scan-cache.js';
import { scanCommitsBlobFirst } from './sources/blob-first.js';
import type { GitRunner } from './sources/git.js';
import { type CommitList, type CommitRange, listCommits, scanCommitsByDiff } from './sources/history.js';
import {
  type DefaultBranch,
  isShallow,
  openRepository,
  readIgnoreList,
  refsContaining,
  resolveDefaultBranch,
  shallowBoundaries,
} from './sources/repository.js';
import { isFailing } from './summary.js';
import type { Finding, FindingVerifier, ScanResult } from './types.js';

export interface ScanOptions {
  /** A git work tree or bare repository. */
  path: string;
  /** Where `.svcignore` is read; default: remote HEAD, else the checked-out branch. */
  defaultBranch?: string;
  /** The git executable; default `git` from PATH. */
  gitBinary?: string;
  /** `git log` processes to run at once; default: the machine's cores, at most 4. */
  parallelism?: number;
  onProgress?: (done: number, total: number) => void;
  /** Non-fatal problems (a shallow clone, unreadable commits), one line each. */
  onWarning?: (message: string) => void;
  /** Credential checks to run on the findings; none (the default) leaves every finding unchecked. */
  verify?: FindingVerifier;
  /**
   * How commits are read: `blob-first` (the default) gates every new blob and asks git for a line
   * diff only where a finding is possible; `diff` reads git's diff of every commit. Both give the
   * same result (a test holds them to it); `diff` stays as the reference.
   */
  method?: 'blob-first' | 'diff';
  /**
   * Only part of the history: the commits reachable from `tips` and from none of `exclude` (the
   * GitHub application scans what a push or a pull request brought). Default: every ref. A
   * shallow repository is then incomplete only when one of these commits lacks its parents.
   */
  commits?: CommitRange;
  /**
   * Incremental scans (svc scan --cache): a file recording the commits found clean, read only again when
   * they are not listed there. The report is the one a full scan gives.
   */
  cache?: string;
  /** The product version, which keys the cache (a new scanner does not trust an old cache). */
  scannerVersion?: string;
  /**
   * Stops the scan: every git it runs is killed and the scan rejects. For callers with a time bound
   * (the service's dashboard scans); the CLI runs to the end.
   */
  signal?: AbortSignal;
  /**
   * Object ids the blob table holds in memory before the rest go to a temporary file (ids and
   * numbers only); default 131,072. Tests make it small to exercise the file.
   */
  blobIdsInMemory?: number;
  /**
   * The diff pass writes indexes of just the objects its gits read (diff-index.ts) where the
   * repository's pack indexes together are at least this many bytes; default 40 MiB. Tests make it
   * 0 to exercise them.
   */
  diffIndexFromBytes?: number;
}

/** Scans the full history of a repository; findings carry no secret (see secrets.ts). */
export async function scanRepository(options: ScanOptions): Promise<ScanResult> {
  const startedAt = new Date().toISOString();
  options.signal?.throwIfAborted();
  const git = await openRepository(options.path, options.gitBinary ?? 'git', options.signal);
  if (options.commits !== undefined && options.cache !== undefined) {
    throw new ScanError('usage', 'a range of commits and a cache file cannot be combined');
  }
  // The default branch and its .svcignore are asked while the commits are listed (four gits beside
  // the native walk, which leaves this thread idle); an error of theirs still comes first.
  const branchAndIgnoreList = defaultBranchAndIgnoreList(git, options.defaultBranch);
  branchAndIgnoreList.catch(() => {}); // awaited below, whatever the listing does

  const warn = (message: string) => options.onWarning?.(message);
  let listing: { list: CommitList; missing: string[] };
  let incremental: IncrementalScan | null;
  try {
    incremental =
      options.cache === undefined
        ? null
        : await IncrementalScan.open(
            { file: options.cache, scannerVersion: options.scannerVersion ?? 'unknown', warn },
            git,
          );
    const cachedListing = (await incremental?.listing(git)) ?? null;
    listing =
      cachedListing !== null ? { list: cachedListing, missing: [] } : await listCommits(git, options.commits);
  } catch (e) {
    await branchAndIgnoreList;
    throw e;
  }
  const { list: commits, missing } = listing;
  // A full listing's records are in a temporary file (commit-list.ts): let it go however the scan ends.
  try {
    const { branch, ignoreList } = await branchAndIgnoreList;
    const shallow = await isShallowFor(git, commits, options.commits !== undefined);
    if (shallow) {
      options.onWarning?.(
        'shallow clone: history before the clone depth is not scanned (run `git fetch --unshallow` first)',
      );
    }
    const total = commits.length;
    // Commits the cache knows had findings are read again where it says they are: the gate would only
    // say so again. Only the findings it recorded are taken from them (known-findings.ts).
    const split = incremental?.toRead(commits) ?? { gate: commits, known: new Map() };
    const gate = split.gate;
    const known = new KnownFindings(split.known);

    const collector = new FindingCollector({
      ignoreList,
      commitOf: (commit) => commit.sha,
      accepts: (commit, fingerprint) => commit === null || known.accepts(commit, fingerprint),
    });
    const findings = collector.findings;

    let done = total - gate.length - known.size;
    // The total is known before the first commit is read: callers can show "0 of N" through the gate
    // pass, which reports its clean commits only at its end.
    options.onProgress?.(done, total);
    const onCommitDone = () => {
      done++;
      options.onProgress?.(Math.min(done, total), total);
    };
    const reading = {
      git,
      sink: collector,
      prefilter: PREFILTER,
      parallelism: options.parallelism ?? Math.min(4, availableParallelism()),
      wholeHistory: options.commits === undefined && gate.length === commits.length,
      blobIdsInMemory: options.blobIdsInMemory,
      diffIndexFromBytes: options.diffIndexFromBytes,
    };
    const unreadable = (
      await Promise.all([
        options.method === 'diff'
          ? scanCommitsByDiff(reading, gate, onCommitDone)
          : scanCommitsBlobFirst(reading, gate, onCommitDone),
        known.read(reading, (fingerprint) => findings.has(fingerprint), onCommitDone),
      ])
    ).flat();
    const unreadableCommits = [...missing, ...unreadable].sort();
    if (unreadableCommits.length > 0) {
      options.onWarning?.(
        `${unreadableCommits.length} commit(s) could not be read (missing objects); the scan is incomplete`,
      );
    }

    // Killed gits end their streams like finished ones: without this check an aborted scan could
    // return a partial result as if it were whole.
    options.signal?.throwIfAborted();
    await incremental?.save(commits, placesByCommit(findings.values()), unreadable, missing.length === 0);

    const { findings: list, summary, passed, verified } = await collector.finish(options.verify);
    const failingCommits = [...new Set(list.filter(isFailing).map((f) => f.commit))].filter(
      (c) => c !== null,
    );
    return {
      repository: options.path,
      defaultBranch: branch.name,
      commitsScanned: total - unreadable.length,
      incomplete: unreadableCommits.length > 0,
      unreadableCommits,
      shallow,
      findings: list,
      summary,
      passed,
      verified,
      refsOfCommit: await refsContaining(git, failingCommits),
      startedAt,
      finishedAt: new Date().toISOString(),
    };
  } finally {
    commits.close();
  }
}

/** Where each commit's findings are, for the cache. */
function placesByCommit(findings: Iterable<Finding>): Map<string, FindingPlace[]> {
  const places = new Map<string, FindingPlace[]>();
  for (const f of findings) {
    if (f.commit === null) continue;
    const list = places.get(f.commit) ?? [];
    list.push([f.ruleId, f.path, f.line]);
    places.set(f.commit, list);
  }
  return places;
}

/** The default branch (or the one asked for) and the fingerprints its .svcignore lists. */
async function defaultBranchAndIgnoreList(
  git: GitRunner,
  requested: string | undefined,
): Promise<{ branch: DefaultBranch; ignoreList: Set<string> }> {
  const branch = await resolveDefaultBranch(git, requested);
  return { branch, ignoreList: await readIgnoreList(git, branch.revision) };
}

/**
 * Whether history the scan should have read is cut off. For a range, only when one of its commits is
 * a shallow boundary (its parents absent, so it would read as adding every line); the rest of the
 * history is outside the range anyway.
 */
async function isShallowFor(git: GitRunner, commits: CommitList, ranged: boolean): Promise<boolean> {
  if (!ranged) return isShallow(git);
  const boundaries = await shallowBoundaries(git);
  if (boundaries.size === 0) return false;
  for (let i = 0; i < commits.length; i++) if (boundaries.has(commits.at(i))) return true;
  return false;
}
