import { readFile, stat } from 'node:fs/promises';
import { ScanError } from '../errors.js';
import { parseIgnoreFile } from '../ignore.js';
import { firstLine, type GitRunner, runGit } from './git.js';
import { repositoryLayout } from './object-database.js';

/** Checks that `path` exists and is a git repository (work tree or bare); one clear error if not. */
export async function openRepository(path: string, binary: string, signal?: AbortSignal): Promise<GitRunner> {
  const info = await stat(path).catch(() => null);
  if (info === null) throw new ScanError('usage', `path does not exist: ${path}`);
  if (!info.isDirectory()) throw new ScanError('usage', `not a directory: ${path}`);
  const git: GitRunner = { binary, repo: path, signal, answers: new Map() };
  const check = await runGit(git, ['rev-parse', '--git-dir']);
  if (check.code !== 0) {
    const message = firstLine(check.stderr);
    if (/dubious ownership/.test(check.stderr)) {
      throw new ScanError('fatal', `${message} (run: git config --global --add safe.directory '${path}')`);
    }
    throw new ScanError('usage', `not a git repository: ${path}`);
  }
  return git;
}

export async function isShallow(git: GitRunner): Promise<boolean> {
  const layout = await repositoryLayout(git);
  if (layout !== null) return layout.shallow;
  const result = await runGit(git, ['rev-parse', '--is-shallow-repository']);
  return result.stdout.toString('utf8').trim() === 'true';
}

/** The commits a shallow repository has without their parents (its `shallow` file); empty when complete. */
export async function shallowBoundaries(git: GitRunner): Promise<Set<string>> {
  const path = await runGit(git, ['rev-parse', '--path-format=absolute', '--git-path', 'shallow']);
  const file = path.stdout.toString('utf8').trim();
  const text = await readFile(file, 'latin1').catch(() => '');
  return new Set(text.split('\n').filter((line) => line.length > 0));
}

export interface DefaultBranch {
  /** Short name for reports ("main"), or null when nothing is checked out and no ref was given. */
  name: string | null;
  /** What to read `.svcignore` from, or null when there is nothing to read. */
  revision: string | null;
}

/**
 * `--default-branch REF` if given, else the remote HEAD, else the checked-out branch (or, on a
 * detached HEAD as CI checkouts often are, the checked-out commit).
 */
export async function resolveDefaultBranch(git: GitRunner, requested?: string): Promise<DefaultBranch> {
  if (requested !== undefined) {
    // --end-of-options: a ref may start with "-" (refs/heads/-x), and must not be read as an option.
    const found = await runGit(git, [
      'rev-parse',
      '--verify',
      '--quiet',
      '--end-of-options',
      `${requested}^{commit}`,
    ]);
    if (found.code !== 0) throw new ScanError('usage', `default branch not found: ${requested}`);
    // The commit id, not the name, is what later commands read from: no name reaches them as an argument.
    return { name: shortName(requested), revision: found.stdout.toString('utf8').trim() };
  }
  const remoteHead = await runGit(git, ['symbolic-ref', '--quiet', 'refs/remotes/origin/HEAD']);
  if (remoteHead.code === 0) {
    const ref = remoteHead.stdout.toString('utf8').trim();
    return { name: shortName(ref), revision: ref };
  }
  const head = await runGit(git, ['symbolic-ref', '--quiet', 'HEAD']);
  const hasCommit = (await runGit(git, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])).code === 0;
  if (head.code === 0) {
    const ref = head.stdout.toString('utf8').trim();
    return { name: shortName(ref), revision: hasCommit ? ref : null };
  }
  return hasCommit ? { name: 'HEAD', revision: 'HEAD' } : { name: null, revision: null };
}

function shortName(ref: string): string {
  return ref.replace(/^refs\/(heads|remotes\/[^/]+|tags)\//, '');
}

/** The fingerprints listed in `.svcignore` at `revision`; empty when the file is absent. */
export async function readIgnoreList(git: GitRunner, revision: string | null): Promise<Set<string>> {
  if (revision === null) return new Set();
  const result = await runGit(git, ['cat-file', 'blob', `${revision}:.svcignore`]);
  return result.code === 0 ? parseIgnoreFile(result.stdout.toString('utf8')) : new Set();
}

/**
 * Past these, which refs hold a commit is not looked up: `git for-each-ref --contains` walks history
 * from every ref, about a second a commit on a 10,000-ref mirror. CI checkouts and work trees have
 * a few dozen refs.
 */
export const REFS_LOOKUP_LIMITS = { refs: 200, commits: 25 } as const;

/**
 * The refs (short names) whose history holds each commit, for the human reports: a secret on an
 * unmerged branch or a tag is public too. Empty when the repository has too many refs or there are
 * too many commits to look up (REFS_LOOKUP_LIMITS).
 */
export async function refsContaining(
  git: GitRunner,
  commits: readonly string[],
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  if (commits.length === 0 || commits.length > REFS_LOOKUP_LIMITS.commits) return found;
  const refs = await runGit(git, [
    'for-each-ref',
    '--count',
    String(REFS_LOOKUP_LIMITS.refs + 1),
    '--format=x',
  ]);
  if (refs.code !== 0 || refs.stdout.toString('utf8').split('\n').length - 1 > REFS_LOOKUP_LIMITS.refs)
    return found;
  for (const commit of commits) {
    const r = await runGit(git, ['for-each-ref', '--format=%(refname:short)', '--contains', commit]);
    if (r.code !== 0) continue;
    found.set(
      commit,
      r.stdout
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== ''),
    );
  }
  return found;
}
