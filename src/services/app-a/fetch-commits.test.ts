import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHttpServer } from '../../../test/helpers/git-http-server.js';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { scanRepository } from '../../scanner/index.js';
import { CloneError } from '../scan-clone.js';
import { type FetchedCommits, fetchCommits } from './fetch-commits.js';
import type { AppScanJob } from './job.js';

/**
 * The application's fetch against a real git server that takes only the tokens it is told are valid:
 * what a push or pull request needs comes, and not the history before it, and every commit to scan
 * has its parents (so none reads as adding every line of every file).
 */
const valid = new Set(['good-token']);
const basic = (token: string) => `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
let git: GitHttpServer;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  git = await GitHttpServer.start({
    authorize: (header) => [...valid].some((token) => header === basic(token)),
  });
});
afterAll(async () => {
  await git.stop();
  for (const cleanup of cleanups) cleanup();
});

let repoCount = 0;
function served(): { repo: TestRepo; name: string; push: (branch?: string, force?: boolean) => void } {
  const repo = new TestRepo();
  cleanups.push(() => repo.cleanup());
  const name = `r${++repoCount}`;
  repo.commitFiles({ 'README.md': '# r\n' });
  repo.git('init', '-q', '--bare', git.pathOf('acme', name));
  const push = (branch = 'main', force = false) =>
    repo.git(
      'push',
      '-q',
      ...(force ? ['--force'] : []),
      git.pathOf('acme', name),
      `${branch}:refs/heads/${branch}`,
    );
  return { repo, name, push };
}

function job(fields: Partial<AppScanJob> & Pick<AppScanJob, 'head' | 'exclude'>): AppScanJob {
  return {
    installationId: 1,
    repository: 'acme/x',
    event: 'push',
    defaultBranch: 'main',
    onDefaultBranch: true,
    ...fields,
  };
}

async function fetched(
  name: string,
  j: AppScanJob,
  tokens: string[] = ['good-token'],
): Promise<FetchedCommits & { dir: string; refused: number; scanned: number; shallow: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-app-fetch-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'home'));
  let refused = 0;
  const result = await fetchCommits({
    job: j,
    url: git.urlOf('acme', name),
    into: join(dir, 'repo.git'),
    emptyHome: join(dir, 'home'),
    maxBytes: 1 << 30,
    signal: new AbortController().signal,
    authorization: async () => basic(tokens[Math.min(refused, tokens.length - 1)] ?? ''),
    onRefused: () => {
      refused++;
    },
  });
  const scan = await scanRepository({ path: join(dir, 'repo.git'), commits: result.range });
  return { ...result, dir, refused, scanned: scan.commitsScanned, shallow: scan.shallow };
}

describe('fetching what a push or pull request brought', () => {
  it('fetches two commits for a one-commit push into a long history', async () => {
    const { repo, name, push } = served();
    for (let i = 0; i < 80; i++) repo.commitFiles({ [`f${i % 9}.txt`]: `${i}\n` });
    const before = repo.head();
    const after = repo.commitFiles({ 'new.txt': 'new\n' });
    push();
    const result = await fetched(name, job({ head: after, exclude: [before] }));
    // The pushed commit, its parent (the old tip) and that one's parent: depth 2 from every tip.
    expect(result.commitsFetched).toBe(3);
    expect(result.blobsFetched).toBe(1);
    expect(result.scanned).toBe(1);
    expect(result.shallow).toBe(false);
  });

  it('deepens for a push of several commits and a merge, until each has its parents', async () => {
    const { repo, name, push } = served();
    for (let i = 0; i < 40; i++) repo.commitFiles({ 'a.txt': `${i}\n` });
    const before = repo.head();
    push();
    repo.git('checkout', '-q', '-b', 'side');
    for (let i = 0; i < 6; i++) repo.commitFiles({ 'side.txt': `${i}\n` });
    repo.git('checkout', '-q', 'main');
    for (let i = 0; i < 4; i++) repo.commitFiles({ 'main.txt': `${i}\n` });
    repo.git('merge', '-q', '--no-edit', 'side');
    push();
    const result = await fetched(name, job({ head: repo.head(), exclude: [before] }));
    expect(result.scanned).toBe(6 + 4 + 1);
    expect(result.shallow).toBe(false);
    expect(result.commitsFetched).toBeLessThan(25);
  });

  it('scans a new branch from where it left the default branch', async () => {
    const { repo, name, push } = served();
    for (let i = 0; i < 30; i++) repo.commitFiles({ 'a.txt': `${i}\n` });
    push();
    repo.git('checkout', '-q', '-b', 'topic');
    for (let i = 0; i < 3; i++) repo.commitFiles({ 't.txt': `${i}\n` });
    push('topic');
    const result = await fetched(name, job({ head: repo.head(), exclude: [], onDefaultBranch: false }));
    expect(result.scanned).toBe(3);
    expect(result.shallow).toBe(false);
  });

  it('stands the default branch in for a tip a force-push removed from the host', async () => {
    const { repo, name, push } = served();
    push();
    repo.git('checkout', '-q', '-b', 'topic');
    const dropped = repo.commitFiles({ 'wip.txt': 'wip\n' });
    push('topic');
    repo.git('reset', '-q', '--hard', 'main');
    const rewritten = repo.commitFiles({ 'done.txt': 'done\n' });
    push('topic', true);
    const bare = git.pathOf('acme', name);
    execFileSync('git', ['-C', bare, 'reflog', 'expire', '--expire=now', '--all']);
    execFileSync('git', ['-C', bare, 'gc', '-q', '--prune=now']);
    const result = await fetched(name, job({ head: rewritten, exclude: [dropped], onDefaultBranch: false }));
    expect(result.unavailable).toEqual([dropped]);
    expect(result.scanned).toBe(1);
  });

  it('asks for a new token once when the host refuses the one it had', async () => {
    const { repo, name, push } = served();
    const before = repo.head();
    const after = repo.commitFiles({ 'x.txt': 'x\n' });
    push();
    const result = await fetched(name, job({ head: after, exclude: [before] }), [
      'expired-token',
      'good-token',
    ]);
    expect(result.refused).toBe(1);
    expect(result.scanned).toBe(1);
  });

  it('fails as not found, in its own words, when no token is accepted', async () => {
    const { repo, name, push } = served();
    push();
    const error = await fetched(name, job({ head: repo.head(), exclude: [] }), ['bad']).catch((e) => e);
    expect(error).toBeInstanceOf(CloneError);
    expect((error as CloneError).reason).toBe('not-found');
  });
});
