import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  type CacheContent,
  type CacheKey,
  type FindingPlace,
  loadScanCache,
  rulesDigest,
  saveScanCache,
} from './scan-cache.js';
import { type GitRunner, runGit } from './sources/git.js';
import { CommitList } from './sources/history.js';

export interface IncrementalOptions {
  /** The cache file (`svc scan --cache FILE`). */
  file: string;
  /** The product version, part of the cache key. */
  scannerVersion: string;
  warn: (message: string) => void;
}

/**
 * Which commits a scan must read when a cache says some are known clean, and how to record the
 * outcome. A commit id fixes its content and its parents, so a clean commit stays clean whatever
 * refs come and go or get rewritten: only the ids still listed are kept, and new ids are read.
 * The one exception is a shallow clone's boundary commits, which git diffs as if they had no
 * parent (so they "add" every line): they are always read again, in full (not only where the
 * cache saw findings).
 *
 * Listing every commit (`git rev-list --all`, 0.4 s on 40,000 commits) is avoided where the cache
 * already knows the answer:
 * - no ref moved since it was written (the same refs, HEAD and shallow boundary): the commits are the
 *   ones it lists;
 * - every commit a ref pointed at then (its tips) is still reachable: the commits are the ones it lists
 *   and the new ones, `git rev-list --all --not <old tips>` (listingSince).
 */
export class IncrementalScan {
  private readonly clean: Set<string>;
  /** Commits with findings, and where: read again only there (known-findings.ts). */
  private readonly recheck: Map<string, FindingPlace[]>;

  private constructor(
    private readonly options: IncrementalOptions,
    private readonly key: CacheKey,
    private readonly cached: CacheContent,
    private readonly refs: RefsSnapshot,
    private readonly boundary: string[],
  ) {
    this.clean = new Set(cached.clean);
    this.recheck = new Map(cached.recheck);
    for (const commit of boundary) {
      this.clean.delete(commit);
      this.recheck.delete(commit);
    }
  }

  static async open(options: IncrementalOptions, git: GitRunner): Promise<IncrementalScan> {
    const key = { scanner: options.scannerVersion, rules: rulesDigest() };
    const [cached, boundary, refs] = await Promise.all([
      loadScanCache(options.file, key, options.warn),
      shallowBoundary(git),
      // -d: annotated tags peeled too, so that a tag's commit counts as pointed at.
      runGit(git, ['show-ref', '--head', '-d']),
    ]);
    const digest = createHash('sha256').update(refs.stdout).update(boundary.join('\n')).digest('hex');
    const pointedAt = new Set(refs.stdout.toString('latin1').match(/^[0-9a-f]+(?= )/gm) ?? []);
    return new IncrementalScan(options, key, cached, { digest, pointedAt }, boundary);
  }

  /**
   * Every commit, without listing the whole history, when the cache can tell: null when it cannot
   * (then list them all).
   */
  async listing(git: GitRunner): Promise<CommitList | null> {
    if (this.cached.refs === this.refs.digest) return this.cachedCommits();
    return this.listingSince(git);
  }

  private cachedCommits(): CommitList {
    return CommitList.of([...this.cached.clean, ...this.cached.recheck.keys()]);
  }

  /**
   * The cached commits and the commits reachable now from no old tip, provided every old tip is still
   * reachable (else commits the cache lists may be gone: a deleted branch, a force-push). A commit
   * reachable now is either reachable from an old tip, and listed in the cache, or new; and when
   * every old tip is reachable, so is every commit the cache lists. A shallow clone's boundary can
   * move with a fetch, so shallow repositories are always listed in full.
   */
  private async listingSince(git: GitRunner): Promise<CommitList | null> {
    const tips = this.cached.tips;
    if (tips === null || this.cached.refs === null || this.boundary.length > 0) return null;
    // --stdin: a long list of tips does not fit a command line.
    const negated = tips.map((tip) => `^${tip}\n`).join('');
    const since = await runGit(git, ['rev-list', '--parents', '--all', '--stdin'], negated);
    if (since.code !== 0) return null; // an old tip is gone (a force-push and gc), or an object is missing
    const fresh: string[] = [];
    const parents = new Set<string>();
    for (const line of since.stdout.toString('latin1').split('\n')) {
      if (line === '') continue;
      const [sha, ...ofIt] = line.split(' ');
      fresh.push(sha!);
      for (const parent of ofIt) parents.add(parent);
    }
    // An old tip still pointed at, or a parent of a new commit, is reachable; any other is asked about:
    // `git rev-list <tips> --not --all` lists what they reach and no ref does.
    const unsure = tips.filter((tip) => !this.refs.pointedAt.has(tip) && !parents.has(tip));
    if (unsure.length > 0) {
      const stray = await runGit(
        git,
        ['rev-list', '-n', '1', '--stdin', '--not', '--all'],
        unsure.join('\n'),
      );
      if (stray.code !== 0 || stray.stdout.length > 0) return null;
    }
    return this.cachedCommits().concat(CommitList.of(fresh));
  }

  /**
   * The commits of `all` the cache does not vouch for: those it knows had findings (`known`, with
   * where they are), and the others (`gate`).
   */
  toRead(all: CommitList): { gate: CommitList; known: Map<string, FindingPlace[]> } {
    const known = new Map<string, FindingPlace[]>();
    for (let i = 0; i < all.length; i++) {
      const sha = all.at(i);
      const places = this.recheck.get(sha);
      if (places !== undefined) known.set(sha, places);
    }
    return { gate: all.filter((sha) => !this.clean.has(sha) && !this.recheck.has(sha)), known };
  }

  /**
   * Records which listed commits were clean (read or cached, with neither a finding nor a read
   * error) and which were not; the refs digest only when the listing was complete.
   */
  async save(
    all: CommitList,
    findings: Map<string, FindingPlace[]>,
    unreadable: string[],
    complete: boolean,
  ): Promise<void> {
    const unreadableSet = new Set(unreadable);
    const content: CacheContent = {
      clean: [],
      recheck: new Map(),
      refs: complete ? this.refs.digest : null,
      tips: complete && this.boundary.length === 0 ? [] : null,
    };
    for (let i = 0; i < all.length; i++) {
      const sha = all.at(i);
      const places = findings.get(sha);
      if (this.refs.pointedAt.has(sha)) content.tips?.push(sha);
      if (unreadableSet.has(sha)) {
        content.refs = null;
        content.tips = null;
      } else if (places !== undefined) content.recheck.set(sha, places);
      else content.clean.push(sha);
    }
    await saveScanCache(this.options.file, this.key, content).catch((e: NodeJS.ErrnoException) =>
      this.options.warn(`cannot write the scan cache ${this.options.file}: ${e.code ?? e.message}`),
    );
  }
}

/** The refs as the scan found them. */
interface RefsSnapshot {
  /** A digest of every ref, HEAD and the shallow boundary: any moved ref changes it. */
  digest: string;
  /** Every object a ref or HEAD points at, tags peeled: the listed commits among them are the tips. */
  pointedAt: Set<string>;
}

/** The commits listed in `$GIT_DIR/shallow`: where a shallow clone's history is cut. */
async function shallowBoundary(git: GitRunner): Promise<string[]> {
  const path = await runGit(git, ['rev-parse', '--git-path', 'shallow']);
  const file = resolve(git.repo, path.stdout.toString('utf8').trim());
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '');
}
