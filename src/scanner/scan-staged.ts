import { PREFILTER } from './detect/prefilter.js';
import { FindingCollector } from './finding-collector.js';
import { openRepository, readIgnoreList, resolveDefaultBranch } from './sources/repository.js';
import { readStagedChanges } from './sources/staged-changes.js';
import type { FindingVerifier, ScanResult } from './types.js';

export interface StagedScanOptions {
  /** A git work tree. */
  path: string;
  /** Where `.svcignore` is read; default: remote HEAD, else the checked-out branch. */
  defaultBranch?: string;
  gitBinary?: string;
  /** Credential checks; none by default: a commit hook is fast and offline (contract section 10). */
  verify?: FindingVerifier;
}

/**
 * Scans the lines the index adds relative to HEAD (`svc scan --staged`, for a pre-commit hook): the
 * same rules, location classes, ignore list and reports as a history scan. A finding has no commit
 * (`commit: null`) and the fingerprint `<rule>:staged:<path>:<line>`.
 */
export async function scanStaged(options: StagedScanOptions): Promise<ScanResult> {
  const startedAt = new Date().toISOString();
  const git = await openRepository(options.path, options.gitBinary ?? 'git');
  const branch = await resolveDefaultBranch(git, options.defaultBranch);
  const collector = new FindingCollector({
    ignoreList: await readIgnoreList(git, branch.revision),
    commitOf: () => null,
  });
  await readStagedChanges(git, collector, PREFILTER);
  const { findings, summary, passed, verified } = await collector.finish(options.verify);
  return {
    repository: options.path,
    defaultBranch: branch.name,
    commitsScanned: 0,
    incomplete: false,
    unreadableCommits: [],
    shallow: false,
    staged: true,
    findings,
    summary,
    passed,
    verified,
    startedAt,
    finishedAt: new Date().toISOString(),
  };
}
