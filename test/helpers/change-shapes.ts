import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PLAIN_GIT_ENV, TestRepo } from './git-repo.js';

/**
 * A history with every shape of change a tree diff meets (native-listing.test.ts, diff-index.test.ts):
 * root commits, changes at every depth, files becoming directories and symlinks, mode changes,
 * gitlinks, names git orders apart, and merges of every shape.
 */

/** Commits in the index as they are (a gitlink staged by hand would be unstaged by `add -A`). */
function commitIndex(repo: TestRepo, message: string): string {
  repo.git('commit', '-q', '--allow-empty', '-m', message);
  return repo.head();
}

/** A merge of `branch` into the current branch that stops on a conflict (git merge exits 1). */
export function mergeStopping(repo: TestRepo, ...args: string[]): void {
  try {
    repo.git('merge', '-q', '--no-edit', ...args);
  } catch {
    // A conflict: the test resolves it.
  }
}

const README = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n');

export interface ChangeShapes {
  repo: TestRepo;
  commits: Record<string, string>;
}

/**
 * One history with every shape of change (commit ids by name), in a new repository the caller
 * cleans up. Branches: main, topic, other (an
 * unrelated root), o1-o3 (octopus), df-file/df-dir (a path a file in one, a directory in the other),
 * conflict-a/conflict-b.
 */
export function buildChangeShapes(): ChangeShapes {
  const repo = new TestRepo();
  const c: Record<string, string> = {};
  const link = (path: string, target: string) => {
    rmSync(join(repo.dir, path), { force: true });
    symlinkSync(target, join(repo.dir, path));
  };
  // The root: files at several depths, names git orders apart as trees and as files (`a` is a tree
  // here: after `a.c`, before `a0`), names with spaces and beyond ASCII, a symlink.
  repo
    .write('README.md', `${README}\n`)
    .write('src/index.js', 'index\n')
    .write('src/lib/util.js', 'util\n')
    .write('src/lib/deep/er/x.js', 'x1\n')
    .write('a-b', 'a-b\n')
    .write('a.c', 'a.c\n')
    .write('a/inner.txt', 'inner\n')
    .write('a0', 'a0\n')
    .write('f2d', 'a file that becomes a directory\n')
    .write('name with space.txt', 'space\n')
    .write('dír/ñame.txt', 'accents\n')
    .write('日本/語.md', 'cjk\n')
    .write('link-target.txt', 'target\n')
    .write('tool.sh', '#!/bin/sh\n')
    .write('to-link', 'a file that becomes a symlink\n')
    .write('conflict.txt', 'base\n');
  link('link', 'link-target.txt');
  c.root = repo.commit('root');
  // Adds, modifies and deletes at several depths.
  repo
    .write('src/lib/deep/er/x.js', 'x2\n')
    .write('docs/new/y.md', 'y\n')
    .write('README.md', `${README}\nmore\n`);
  rmSync(join(repo.dir, 'src/index.js'));
  c.depths = repo.commit('depths');
  // A directory replaced by a file, and a file by a directory.
  rmSync(join(repo.dir, 'a'), { recursive: true });
  repo.write('a', 'now a file\n');
  c.dirToFile = repo.commit('dir to file');
  rmSync(join(repo.dir, 'f2d'));
  repo.write('f2d/inside.txt', 'inside\n').write('f2d/deeper/z.txt', 'z\n');
  c.fileToDir = repo.commit('file to dir');
  // A file becomes a symlink, a symlink a file.
  link('to-link', 'link-target.txt');
  rmSync(join(repo.dir, 'link'));
  repo.write('link', 'now a file\n');
  c.symlinks = repo.commit('file <-> symlink');
  // Modes: 100644 -> 100755, then back with a new content.
  chmodSync(join(repo.dir, 'tool.sh'), 0o755);
  c.exec = repo.commit('chmod +x');
  repo.write('tool.sh', '#!/bin/sh\necho\n');
  chmodSync(join(repo.dir, 'tool.sh'), 0o644);
  c.unexec = repo.commit('chmod -x and change');
  // A gitlink (a submodule's commit), added, changed, then removed.
  mkdirSync(join(repo.dir, 'sub'));
  repo.git('update-index', '--add', '--cacheinfo', `160000,${c.root},sub`);
  c.gitlinkAdd = commitIndex(repo, 'gitlink');
  repo.git('update-index', '--cacheinfo', `160000,${c.depths},sub`);
  c.gitlinkChange = commitIndex(repo, 'gitlink changed');
  c.empty = repo.commit('empty');
  repo.git('rm', '-q', '--cached', 'sub');
  c.gitlinkRemove = commitIndex(repo, 'gitlink removed');
  repo
    .write('README.md', `${README}\nmore\nand more\n`)
    .write('dír/ñame.txt', 'accents 2\n')
    .write('name with space.txt', 'space 2\n')
    .write('日本/新しい.md', 'new\n');
  c.names = repo.commit('names');

  // A topic branch from `symlinks`: a clean merge whose README is neither parent's.
  repo.git('checkout', '-q', '-b', 'topic', c.symlinks);
  repo
    .write('README.md', `${README.replace('line 1\n', 'line one\n')}\nmore\n`)
    .write('topic.txt', 'topic\n');
  c.topic = repo.commit('topic');
  repo.git('checkout', '-q', 'main');
  repo.git('merge', '-q', '--no-ff', '--no-edit', 'topic');
  c.cleanMerge = repo.head();

  // Conflicts, resolved as the first parent has it, as the second has it, and anew.
  repo.git('checkout', '-q', '-b', 'conflict-b', c.root);
  repo.write('conflict.txt', 'theirs\n').write('deleted-in-merge.txt', 'b side\n');
  c.conflictB = repo.commit('conflict b');
  repo.git('checkout', '-q', 'main');
  repo.write('conflict.txt', 'ours\n').write('deleted-in-merge.txt', 'a side\n');
  c.conflictA = repo.commit('conflict a');
  for (const [name, resolve] of [
    [
      'resolvedOurs',
      () => repo.git('checkout', '-q', '--ours', '--', 'conflict.txt', 'deleted-in-merge.txt'),
    ],
    [
      'resolvedTheirs',
      () => repo.git('checkout', '-q', '--theirs', '--', 'conflict.txt', 'deleted-in-merge.txt'),
    ],
    [
      'resolvedAnew',
      () => {
        repo.write('conflict.txt', 'both\n');
        rmSync(join(repo.dir, 'deleted-in-merge.txt'));
      },
    ],
  ] as const) {
    repo.git('checkout', '-q', '-B', `merge-${name}`, c.conflictA);
    mergeStopping(repo, 'conflict-b');
    resolve();
    c[name] = repo.commit(name);
  }
  // A merge equal to its first parent (-s ours).
  repo.git('checkout', '-q', 'main');
  repo.git('merge', '-q', '--no-edit', '-s', 'ours', 'conflict-b');
  c.equalToParent = repo.head();

  // Two unrelated root commits, merged, with a file both have resolved anew.
  repo.git('checkout', '-q', '--orphan', 'other');
  repo.git('rm', '-rfq', '.');
  repo
    .write('other.txt', 'other root\n')
    .write('README.md', 'the other README\n')
    .write('src/other.js', 'o\n');
  c.otherRoot = repo.commit('other root');
  repo.git('checkout', '-q', 'main');
  mergeStopping(repo, '--allow-unrelated-histories', 'other');
  repo.write('README.md', 'both READMEs\n');
  c.unrelatedMerge = repo.commit('unrelated merge');

  // An octopus of four parents, with a change of its own (README) and a file all had deleted.
  for (const n of [1, 2, 3]) {
    repo.git('checkout', '-q', '-b', `o${n}`, 'main');
    repo.write(`octopus/o${n}.txt`, `o${n}\n`);
    if (n === 2) repo.write('a.c', 'changed on o2\n');
    c[`o${n}`] = repo.commit(`o${n}`);
  }
  repo.git('checkout', '-q', 'main');
  c.beforeOctopus = repo.commitFiles({ 'octopus/main.txt': 'main\n' }); // else git fast-forwards to o1
  repo.git('merge', '-q', '--no-commit', 'o1', 'o2', 'o3');
  repo.write('README.md', 'octopus README\n');
  rmSync(join(repo.dir, 'a-b'));
  c.octopus = repo.commit('octopus');

  // A path that is a file in one parent and a directory in the other, merged both ways.
  repo.git('checkout', '-q', '-b', 'df-file', 'main');
  repo.write('pd', 'pd is a file\n');
  c.dfFile = repo.commit('pd a file');
  repo.git('checkout', '-q', '-b', 'df-dir', 'main');
  repo.write('pd/q.txt', 'q\n').write('pd/r/s.txt', 's\n');
  c.dfDir = repo.commit('pd a directory');
  const commitTree = (files: () => void, parents: string[], message: string) => {
    repo.git('checkout', '-q', '-f', '--detach', parents[0]!);
    repo.git('clean', '-fdq');
    files();
    repo.git('add', '-A');
    const tree = repo.git('write-tree');
    const id = repo.git('commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', message);
    repo.git('update-ref', `refs/heads/${message.replace(/ /g, '-')}`, id);
    return id;
  };
  c.dfMergeDir = commitTree(
    () => {
      rmSync(join(repo.dir, 'pd'), { recursive: true, force: true });
      repo.write('pd/q.txt', 'q merged\n').write('pd/t.txt', 't\n');
    },
    [c.dfFile!, c.dfDir!],
    'df merge dir',
  );
  c.dfMergeFile = commitTree(
    () => {
      rmSync(join(repo.dir, 'pd'), { recursive: true, force: true });
      repo.write('pd', 'pd a file again\n');
    },
    [c.dfDir!, c.dfFile!],
    'df merge file',
  );
  // A merge whose parents are the same commit twice (commit-tree drops a repeated parent: written as is).
  const twiceTree = repo.git('rev-parse', `${c.dfMergeFile}^{tree}`);
  const who = 'Ada Dev <ada@example.test> 1705309200 +0000';
  c.sameParentTwice = writeLiterally(
    repo,
    'commit',
    Buffer.from(
      `tree ${twiceTree}\nparent ${c.dfFile}\nparent ${c.dfFile}\nauthor ${who}\ncommitter ${who}\n\ntwice\n`,
    ),
  );
  repo.git('update-ref', 'refs/heads/twice', c.sameParentTwice);
  repo.git('checkout', '-q', '-f', 'main');
  repo.git('clean', '-fdq');
  return { repo, commits: c };
}

/** Writes `content` as a loose object of `type` as is (git's own checks skipped); its id. */
export function writeLiterally(repo: TestRepo, type: string, content: Buffer): string {
  return execFileSync('git', ['-C', repo.dir, 'hash-object', '--literally', '-t', type, '-w', '--stdin'], {
    input: content,
    env: PLAIN_GIT_ENV,
  })
    .toString('latin1')
    .trim();
}

/** How a copy's objects are packed: deltas by offset (git's default), by id, or in two packs. */
export type Packing = 'offsets' | 'ids' | 'two packs';

/**
 * A bare copy of the git directory `source` at `gitDir` (which must not exist), its objects packed
 * as `packing` says, loose copies pruned: the same commits.
 */
export function packedCopy(source: string, gitDir: string, packing: Packing = 'offsets'): string {
  const git = (...args: string[]) =>
    execFileSync('git', ['--git-dir', gitDir, ...args], { env: PLAIN_GIT_ENV, encoding: 'latin1' });
  cpSync(source, gitDir, { recursive: true });
  if (packing === 'two packs') {
    // The older half of the history in one pack, the rest in another.
    const commits = git('rev-list', '--all').trim().split('\n');
    const middle = commits[Math.floor(commits.length / 2)]!;
    execFileSync(
      'git',
      ['--git-dir', gitDir, 'pack-objects', '-q', '--revs', join(gitDir, 'objects/pack/pack')],
      {
        env: PLAIN_GIT_ENV,
        input: `${middle}\n`,
      },
    );
    git('repack', '-dq');
  } else {
    // By id (REF_DELTA), as packs fetched thin and completed are.
    const offsets = packing === 'offsets' ? 'true' : 'false';
    git('-c', `repack.useDeltaBaseOffset=${offsets}`, 'repack', '-adfq', '--depth=50', '--window=50');
  }
  git('prune-packed');
  return gitDir;
}
