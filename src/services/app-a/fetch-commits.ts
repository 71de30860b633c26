import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type CommitRange, rangeRevisions } from '../../scanner/index.js';
import { CloneError, pinnedGitEnvironment, runGitTransfer } from '../scan-clone.js';
import type { AppScanJob } from './job.js';

const run = promisify(execFile);

export interface FetchCommitsOptions {
  job: AppScanJob;
  /** The repository's git URL (`SVC_CODEHOST_GIT_URL/owner/name.git`). */
  url: string;
  /** A directory that does not exist yet: the bare repository goes there. */
  into: string;
  emptyHome: string;
  maxBytes: number;
  signal: AbortSignal;
  /** The Authorization header value for git (the installation token, as Basic credentials). */
  authorization: () => Promise<string>;
  /** Called when the host refused the token: the next `authorization()` must be a new one. */
  onRefused: () => void;
}

export interface FetchedCommits {
  /** What to scan: the job's head, minus every excluded tip that could be fetched. */
  range: CommitRange;
  /** The default branch as fetched (for `.svcignore`), or undefined when it has none. */
  defaultBranchRef: string | undefined;
  /** How many commits the repository holds here: the fetch's whole cost, for the log. */
  commitsFetched: number;
  /** How many file versions were fetched: those the range's commits add, change or remove. */
  blobsFetched: number;
  /** Excluded tips the host no longer has (a force-push removed them). */
  unavailable: string[];
}

const FIRST_DEPTH = 2;
/** Object ids per fetch of blobs: well within a command line's length. */
const BLOBS_PER_FETCH = 2000;
const NO_OBJECT = '0'.repeat(40);

/**
 * Fetches only what a scan of the job's commits needs, never the whole history: the head, each
 * excluded tip and the default branch's tip with their parents (depth 2), commits and trees only,
 * then deeper, doubling each time, only while some commit of the range is still cut off from its
 * parents (a shallow boundary: it would read as adding every line of every file), and last the blobs
 * the range's commits change. A one-commit push into a history of any length costs a few commits'
 * trees and that commit's files. An excluded tip that cannot be fetched (a force-push removed it) is
 * left out, and the default branch's tip stands in for it.
 */
export async function fetchCommits(options: FetchCommitsOptions): Promise<FetchedCommits> {
  const { job, into } = options;
  const env = pinnedGitEnvironment(options.emptyHome);
  await run('git', ['init', '--quiet', '--bare', into], { env });
  // Commits and trees only: a tip's files would cost as much as the whole tree of the repository. The
  // blobs the scan reads are fetched by id at the end.
  const fetch = (args: string[]) =>
    transfer(options, ['-C', into, 'fetch', '--quiet', '--no-tags', '--filter=blob:none', ...args]);

  const defaultRef = `refs/remotes/origin/${job.defaultBranch}`;
  const defaultSpec = `+refs/heads/${job.defaultBranch}:${defaultRef}`;
  const headSpec = `+${job.head}:refs/svc/head`;
  const excludeSpec = (sha: string, i: number) => `+${sha}:refs/svc/exclude/${i}`;
  const excludeSpecs = job.exclude.map(excludeSpec);
  let hasDefault = true;
  const excluded: string[] = [...job.exclude];
  const unavailable: string[] = [];
  // One round trip when every tip is there (the usual case), each tip alone when one is not (a
  // force-pushed tip gone, a default branch not there yet). Depth 2 from every tip: the head needs
  // its parents, and a shared tip fetched shallower would cut the head off from them.
  const together = await fetch([
    `--depth=${FIRST_DEPTH}`,
    options.url,
    defaultSpec,
    ...excludeSpecs,
    headSpec,
  ]).then(
    () => true,
    (e) => tolerated(e, false),
  );
  if (!together) {
    hasDefault = await fetch([`--depth=${FIRST_DEPTH}`, options.url, defaultSpec]).then(
      () => true,
      (e) => tolerated(e, false),
    );
    excluded.length = 0;
    for (const [i, sha] of job.exclude.entries()) {
      const fetched = await fetch([`--depth=${FIRST_DEPTH}`, options.url, excludeSpec(sha, i)]).then(
        () => true,
        (e) => tolerated(e, false),
      );
      (fetched ? excluded : unavailable).push(sha);
    }
    await fetch([`--depth=${FIRST_DEPTH}`, options.url, headSpec]);
  }
  // Commits already on the default branch are not new, unless the default branch is what was pushed.
  if (hasDefault && !job.onDefaultBranch) excluded.push(defaultRef);
  const range: CommitRange = { tips: [job.head], exclude: excluded };

  const wants = [headSpec, ...(hasDefault ? [defaultSpec] : [])];
  for (let depth = FIRST_DEPTH; ; depth *= 2) {
    const boundary = await shallowBoundary(into);
    if (!(await cutOff(into, range, boundary, env))) break;
    await fetch([`--deepen=${depth}`, options.url, ...wants]);
    // A host that cannot deepen would loop for ever: the scan then says its history is incomplete.
    if ((await shallowBoundary(into)).join() === boundary.join()) break;
  }
  const blobs = await blobsToRead(into, range, hasDefault ? defaultRef : undefined, env);
  for (let i = 0; i < blobs.length; i += BLOBS_PER_FETCH) {
    // Without negotiation: the host would leave out blobs reachable from the commits we already have.
    await transfer(options, [
      '-c',
      'fetch.negotiationAlgorithm=noop',
      '-C',
      into,
      'fetch',
      '--quiet',
      '--no-tags',
      '--no-write-fetch-head',
      '--filter=blob:none',
      options.url,
      ...blobs.slice(i, i + BLOBS_PER_FETCH),
    ]);
  }
  // The fetch made the host a promisor (git would fetch a missing object from it on demand); the scan
  // must never reach the network, so the mark goes.
  await run('git', ['-C', into, 'config', '--remove-section', `remote.${options.url}`], {
    env,
  }).catch(() => {});
  const count = await run('git', ['-C', into, 'rev-list', '--count', '--all'], {
    env,
  });
  return {
    range,
    defaultBranchRef: hasDefault ? defaultRef : undefined,
    commitsFetched: Number(count.stdout.trim()),
    blobsFetched: blobs.length,
    unavailable,
  };
}

/** A git transfer with the token; a refusal of the token is retried once with a new one. */
async function transfer(options: FetchCommitsOptions, command: string[]): Promise<void> {
  const attempt = async () =>
    runGitTransfer({
      url: options.url,
      into: options.into,
      emptyHome: options.emptyHome,
      maxBytes: options.maxBytes,
      signal: options.signal,
      command,
      authorization: await options.authorization(),
    });
  try {
    await attempt();
  } catch (e) {
    // The host answers a refused token as it answers a missing repository: renew and ask once more.
    if (!(e instanceof CloneError) || e.reason !== 'not-found') throw e;
    options.onRefused();
    await attempt();
  }
}

/** A fetch of an optional tip may fail (gone, or an empty repository); anything else may not. */
function tolerated<T>(e: unknown, value: T): T {
  if (e instanceof CloneError && (e.reason === 'not-found' || e.reason === 'failed')) return value;
  throw e;
}

/**
 * The blobs the scan reads: both sides of every file the range's commits change (merges: each
 * parent's, as the combined diff compares them), and the default branch's `.svcignore`.
 */
async function blobsToRead(
  repo: string,
  range: CommitRange,
  defaultRef: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<string[]> {
  const listed = await run(
    'git',
    ['-C', repo, 'log', '--format=', '--raw', '-c', '--no-renames', '--no-abbrev', ...rangeRevisions(range)],
    { maxBuffer: 1 << 30, env },
  );
  const blobs = new Set<string>();
  for (const line of listed.stdout.split('\n')) {
    if (!line.startsWith(':')) continue;
    // `:100644 100644 <old> <new> M\tpath`, or with one more mode and id per parent for a merge.
    const fields = line.slice(0, line.indexOf('\t')).split(' ');
    for (const field of fields) if (/^[0-9a-f]{40}$/.test(field) && field !== NO_OBJECT) blobs.add(field);
  }
  if (defaultRef !== undefined) {
    const ignore = await run(
      'git',
      ['-C', repo, 'rev-parse', '--verify', '--quiet', `${defaultRef}:.svcignore`],
      {
        env,
      },
    ).catch(() => null);
    const id = ignore?.stdout.trim() ?? '';
    if (/^[0-9a-f]{40}$/.test(id)) blobs.add(id);
  }
  return [...blobs];
}

/** The commits this repository has without their parents (its `shallow` file), sorted. */
async function shallowBoundary(repo: string): Promise<string[]> {
  const text = await readFile(join(repo, 'shallow'), 'latin1').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}

/** Whether a commit of the range lacks its parents here. */
async function cutOff(
  repo: string,
  range: CommitRange,
  boundary: string[],
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  if (boundary.length === 0) return false;
  const cut = new Set(boundary);
  const listed = await run('git', ['-C', repo, 'rev-list', ...rangeRevisions(range)], {
    maxBuffer: 1 << 30,
    env,
  });
  return listed.stdout.split('\n').some((sha) => cut.has(sha));
}
