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
 * When no ref moved since the cache was written (the same refs, HEAD and shallow boundary), the
 * commits are the ones it lists, so even `git rev-list --all` is skipped.
 */
export class IncrementalScan {
  private readonly clean: Set<string>;
  /** Commits with findings, and where: read again only there (known-findings.ts). */
  private readonly recheck: Map<string, FindingPlace[]>;

  private constructor(
    private readonly options: IncrementalOptions,
    private readonly key: CacheKey,
    private readonly cached: CacheContent,
    private readonly refs: string,
    boundary: string[],
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
      runGit(git, ['show-ref', '--head']),
    ]);
    const digest = createHash('sha256').update(refs.stdout).update(boundary.join('\n')).digest('hex');
    return new IncrementalScan(options, key, cached, digest, boundary);
  }

  /** Every commit, as the cache lists them, when no ref has moved since it was written. */
  unchangedListing(): CommitList | null {
    if (this.cached.refs !== this.refs) return null;
    return CommitList.of([...this.cached.clean, ...this.cached.recheck.keys()]);
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
    const content: CacheContent = { clean: [], recheck: new Map(), refs: complete ? this.refs : null };
    for (let i = 0; i < all.length; i++) {
      const sha = all.at(i);
      const places = findings.get(sha);
      if (unreadableSet.has(sha)) content.refs = null;
      else if (places !== undefined) content.recheck.set(sha, places);
      else content.clean.push(sha);
    }
    await saveScanCache(this.options.file, this.key, content).catch((e: NodeJS.ErrnoException) =>
      this.options.warn(`cannot write the scan cache ${this.options.file}: ${e.code ?? e.message}`),
    );
  }
}

/** The commits listed in `$GIT_DIR/shallow`: where a shallow clone's history is cut. */
async function shallowBoundary(git: GitRunner): Promise<string[]> {
  const path = await runGit(git, ['rev-parse', '--git-path', 'shallow']);
  const file = resolve(git.repo, path.stdout.toString('utf8').trim());
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '');
}
