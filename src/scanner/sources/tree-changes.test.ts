import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { liveChildProcesses, liveChildren, noChildLeft } from '../../../test/helpers/child-processes.js';
import { buildEdgeHistory, deleteObjects } from '../../../test/helpers/edge-history.js';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { objectReaderForTests } from '../../../test/helpers/object-reader.js';
import { renderReport } from '../report/index.js';
import { scanRepository } from '../scan.js';
import { listCommits } from './history.js';
import { type ListingMode, listTreeChanges, type TreeChange } from './tree-changes.js';

// The scan lists 4,096 commits to a git process; here the scan's listings take 3, so small histories
// are listed by many processes one after another, and a damaged object stops one of them midway.
vi.mock('./tree-changes.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('./tree-changes.js')>();
  return {
    ...original,
    listTreeChanges: (...args: Parameters<typeof original.listTreeChanges>) =>
      original.listTreeChanges(args[0], args[1], args[2], args[3], args[4], args[5] ?? 3, args[6]),
  };
});

let repo: TestRepo;
let damaged: string;
beforeAll(() => {
  repo = new TestRepo();
  buildEdgeHistory(repo);
  damaged = mkdtempSync(join(tmpdir(), 'svc-listing-'));
  execFileSync('git', ['clone', '-q', '--no-local', '--mirror', repo.dir, damaged]);
  const id = (rev: string) =>
    execFileSync('git', ['-C', damaged, 'rev-parse', rev], { encoding: 'utf8' }).trim();
  deleteObjects(damaged, [id('main~8^{tree}'), id('main~3^{tree}')]);
});
afterAll(() => {
  repo.cleanup();
  rmSync(damaged, { recursive: true, force: true });
});

/** Every commit's listing, and the commits handed back unlisted. */
async function listing(path: string, mode: ListingMode, chunk: number, withGit = false) {
  const git = { binary: 'git', repo: path };
  const { list } = await listCommits(git);
  const listed = new Map<string, TreeChange[]>();
  const unlisted = new Set<string>();
  await listTreeChanges(
    git,
    list,
    (sha, changes) => listed.set(`${sha} ${listed.size}`, changes),
    (sha) => unlisted.add(sha),
    mode,
    chunk,
    { withGit },
  );
  return { all: list, listed, unlisted };
}

describe('listTreeChanges in processes of a few commits', () => {
  it('lists what one process lists, in the same order', async () => {
    for (const mode of ['combined', 'per-parent'] as const) {
      const whole = await listing(repo.dir, mode, 1 << 30, true);
      const chunked = await listing(repo.dir, mode, 3, true);
      expect(whole.unlisted.size).toBe(0);
      expect(chunked.unlisted.size).toBe(0);
      expect([...chunked.listed]).toEqual([...whole.listed]);
      expect(whole.listed.size).toBeGreaterThan(3);
    }
  });

  it('on a damaged history, lists or hands back every commit, and lists the rest as one process does', async () => {
    const whole = await listing(damaged, 'combined', 1 << 30);
    const chunked = await listing(damaged, 'combined', 3);
    expect(chunked.unlisted.size).toBeGreaterThan(0);
    for (const run of [whole, chunked]) {
      const seen = new Set([...run.listed.keys()].map((key) => key.split(' ')[0]!));
      for (let i = 0; i < run.all.length; i++) {
        const sha = run.all.at(i);
        expect(seen.has(sha) || run.unlisted.has(sha)).toBe(true);
      }
    }
    const changesOf = (run: typeof whole) =>
      new Map(
        [...run.listed]
          .map(([key, changes]) => [key.split(' ')[0]!, changes] as const)
          .filter(([sha]) => !whole.unlisted.has(sha) && !chunked.unlisted.has(sha)),
      );
    expect(changesOf(chunked)).toEqual(changesOf(whole));
  });

  it('leaves the scan’s report as the diff path gives it, whole and damaged', async () => {
    for (const path of [repo.dir, damaged]) {
      const report = (method: 'blob-first' | 'diff') =>
        scanRepository({ path, method }).then((r) => renderReport(r, 'json', { toolVersion: 'test' }));
      expect(await report('blob-first')).toBe(await report('diff'));
    }
  });
});

describe.skipIf(objectReaderForTests('tree-changes.test.ts').skip)(
  'the listing made by the native object reader',
  () => {
    it('is what git lists, commit for commit', async () => {
      const native = await listing(repo.dir, 'combined', 1 << 30);
      const byGit = await listing(repo.dir, 'combined', 1 << 30, true);
      expect([...native.listed]).toEqual([...byGit.listed]);
      expect(native.unlisted.size).toBe(0);
    });

    it('per parent, each merge once with what git lists against each of its parents in turn', async () => {
      for (const path of [repo.dir, damaged]) {
        const native = await listing(path, 'per-parent', 1 << 30);
        // A commit to a git: a failed per-parent run hands back every commit it was given.
        const byGit = await listing(path, 'per-parent', 1, true);
        // git hands a merge on once per parent: its changes, parent after parent, under one key.
        const merged = (run: typeof native) => {
          const byMerge = new Map<string, TreeChange[]>();
          for (const [key, changes] of run.listed) {
            const sha = key.split(' ')[0]!;
            // git hands on the parents it listed before it died on a merge: not a listing.
            if (byGit.unlisted.has(sha)) continue;
            byMerge.set(sha, [...(byMerge.get(sha) ?? []), ...changes]);
          }
          return byMerge;
        };
        const ours = merged(native);
        // Once each (a merge left to git, and git failed on, aside).
        const keys = [...native.listed.keys()].map((key) => key.split(' ')[0]!);
        expect(keys.filter((sha) => !native.unlisted.has(sha))).toEqual([...ours.keys()]);
        const theirs = merged(byGit);
        // git prints nothing for a parent the merge equals: those merges are in ours alone, empty.
        for (const [sha, changes] of ours) if (!theirs.has(sha)) expect(changes).toEqual([]);
        expect(new Map([...ours].filter(([, changes]) => changes.length > 0))).toEqual(theirs);
        expect(theirs.size).toBeGreaterThan(0);
        expect([...native.unlisted].sort()).toEqual([...byGit.unlisted].sort());
      }
    });

    it('on a damaged history, leaves to git only what git cannot list either', async () => {
      const native = await listing(damaged, 'combined', 1 << 30);
      const byGit = await listing(damaged, 'combined', 3, true);
      expect(native.unlisted.size).toBeGreaterThan(0);
      for (const sha of native.unlisted) expect(byGit.unlisted.has(sha)).toBe(true);
      const changesOf = (run: typeof native) =>
        new Map(
          [...run.listed]
            .map(([key, changes]) => [key.split(' ')[0]!, changes] as const)
            .filter(([sha]) => !byGit.unlisted.has(sha)),
        );
      expect(changesOf(native)).toEqual(changesOf(byGit));
    });
  },
);

describe('an exception in the per-commit callback', () => {
  it('rejects the listing with it, hands on no later commit and leaves no git running', async () => {
    const git = { binary: 'git', repo: repo.dir };
    const { list } = await listCommits(git);
    const failure = new Error('the callback failed');
    let calls = 0;
    // The fourth commit is in the listing's second process (3 commits each).
    const listed = listTreeChanges(
      git,
      list,
      () => {
        if (++calls === 4) throw failure;
      },
      () => {},
      'combined',
      3,
    );
    await expect(listed).rejects.toBe(failure);
    expect(calls).toBe(4);
    expect(liveChildren().filter((name) => name === 'git')).toEqual([]);
  });
});

describe('a paced listing', () => {
  it('settles when its git is killed while it waits (by the system, say), and leaves no git running', async () => {
    // More output than a pipe holds, so git is still writing when the listing stops reading.
    const wide = new TestRepo();
    try {
      const files: Record<string, string> = {};
      for (let i = 0; i < 3000; i++) files[`dir/file-${i}.txt`] = `${i}\n`;
      wide.commitFiles(files, 'many files');
      const git = { binary: 'git', repo: wide.dir };
      const { list } = await listCommits(git);
      // A reader that never catches up: the listing waits after its first piece of output, and
      // then its git is killed from outside.
      const killGits = () => {
        for (const child of liveChildProcesses())
          if (child.name === 'git') process.kill(child.pid, 'SIGKILL');
      };
      const unlisted: string[] = [];
      const listed = listTreeChanges(
        git,
        list,
        () => {},
        (sha) => unlisted.push(sha),
        'combined',
        1 << 30,
        {
          pace: () => {
            setTimeout(killGits, 50);
            return true;
          },
          withGit: true, // git's own listing, whatever the native reader could do
        },
      );
      await listed;
      expect(unlisted).toEqual([list.at(0)]); // handed back, to be read the careful way
      expect(await noChildLeft('git')).toBe(true);
    } finally {
      wide.cleanup();
    }
  });
});
