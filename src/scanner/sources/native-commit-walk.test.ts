import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteObjects } from '../../../test/helpers/edge-history.js';
import { PLAIN_GIT_ENV, TestRepo } from '../../../test/helpers/git-repo.js';
import { objectReaderForTests } from '../../../test/helpers/object-reader.js';
import { type CommitFile, FACT_SIZE } from './commit-list.js';
import { listCommits } from './history.js';
import { eachLine, walkCommitsNatively } from './native-commit-walk.js';

// The native walk of every commit (commit_walk.rs) held to `git rev-list --all`, byte for byte and
// in its order: ties of committer dates, dates out of order, dates git reads oddly, tags of every
// kind, a detached HEAD, notes, a stash; loose, packed and both. Where it cannot walk (a missing
// commit, linked worktrees, a shallow clone) it gives way to git.

const { skip, reader: objectReader } = objectReaderForTests('native-commit-walk.test.ts');

const gitIn = (dir: string, args: string[], input?: string) =>
  execFileSync('git', ['-C', dir, ...args], {
    env: PLAIN_GIT_ENV,
    input,
    maxBuffer: 1 << 30,
    encoding: 'latin1',
  });

/** A commit written by hand (hash-object): its header lines as given, so its dates are any text. */
function handMade(
  repo: TestRepo,
  tree: string,
  parents: string[],
  people: string[],
  message: string,
): string {
  const body = [`tree ${tree}`, ...parents.map((p) => `parent ${p}`), ...people, '', message, ''].join('\n');
  return gitIn(repo.dir, ['hash-object', '-t', 'commit', '-w', '--stdin', '--literally'], body).trim();
}

/** What the walk wrote, as one string (its lines). */
function walkText(file: CommitFile): string {
  const lines: string[] = [];
  eachLine(file, (line) => lines.push(line));
  return lines.map((line) => `${line}\n`).join('');
}

/** Each commit's fact (CommitFacts: tree, first parent, parent count) as git reads the commit. */
function gitFacts(dir: string): Buffer {
  const commits = gitIn(dir, ['rev-list', '--all']);
  const lines = gitIn(dir, ['log', '--no-walk=unsorted', '--stdin', '--format=%T %P'], commits).trim();
  return Buffer.concat(
    lines.split('\n').map((line) => {
      const [tree, ...parents] = line
        .trim()
        .split(' ')
        .filter((p) => p !== '');
      const count = Buffer.alloc(4);
      count.writeUInt32LE(parents.length);
      return Buffer.concat([
        Buffer.from(tree!, 'hex'),
        Buffer.from(parents[0] ?? '0'.repeat(40), 'hex'),
        count,
      ]);
    }),
  );
}

async function expectAsGit(dir: string) {
  for (const [withParents, withFacts] of [
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ] as const) {
    const file = await walkCommitsNatively({ binary: 'git', repo: dir }, withParents, withFacts);
    expect(file).not.toBeNull();
    try {
      const git = gitIn(dir, ['rev-list', '--all', ...(withParents ? ['--parents'] : [])]);
      expect(walkText(file!)).toBe(git);
      expect(file!.size).toBe(Buffer.byteLength(git, 'latin1'));
      if (!withFacts) {
        expect(file!.facts).toBeNull();
        continue;
      }
      // Each commit's tree and parents, in the walk's order, as git reads the commit.
      const count = git.trim().split('\n').length;
      expect(file!.facts!.size).toBe(count * FACT_SIZE);
      expect(file!.facts!.read(0, count).equals(gitFacts(dir))).toBe(true);
    } finally {
      file!.close();
    }
  }
}

let repo: TestRepo;
const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

beforeAll(() => {
  repo = new TestRepo();
  cleanups.push(() => repo.cleanup());
  repo.commitFiles({ 'a.txt': 'a\n' }, 'root');
  for (let i = 0; i < 6; i++) repo.commitFiles({ 'a.txt': `a${i}\n` }, `main ${i}`);
  const tree = repo.git('rev-parse', 'HEAD^{tree}');
  const base = repo.git('rev-parse', 'HEAD~3');
  const person = (role: string, date: string) => `${role} Ada Dev <ada@example.test> ${date}`;
  // Branches whose commits share one date (ties: git keeps the order it queued them in), and one
  // dated before its parent (a skewed clock).
  const tied = (name: string, count: number, date: string, parent = base) => {
    let at = parent;
    for (let i = 0; i < count; i++) {
      at = handMade(repo, tree, [at], [person('author', date), person('committer', date)], `${name} ${i}`);
    }
    repo.git('update-ref', `refs/heads/${name}`, at);
    return at;
  };
  const t1 = tied('tie-a', 4, '1705312000 +0000');
  tied('tie-b', 4, '1705312000 +0000');
  tied('tie-c', 2, '1705312000 +0000', t1);
  tied('skewed', 3, '1000000000 +0000', repo.head());
  // Dates git reads oddly (2.39's parse_commit_date): negative, beyond 64 bits, no `>`, spaces and a
  // plus sign before the digits, no committer line, the committer before the author.
  const odd = [
    [person('author', '5 +0000'), person('committer', '-5 +0000')],
    [person('author', '5 +0000'), person('committer', '99999999999999999999999 +0000')],
    [person('author', '5 +0000'), 'committer Ada Dev ada@example.test 1705312000 +0000'],
    [person('author', '5 +0000'), 'committer Ada Dev <ada@example.test>   +1705312001 +0000'],
    [person('author', '5 +0000')],
    [person('committer', '1705312002 +0000'), person('author', '5 +0000')],
    [person('author', '5 +0000'), 'committer A <a> <b> 1705312003 +0000'],
  ];
  let chain = base;
  odd.forEach((people, i) => {
    chain = handMade(repo, tree, [chain], people, `odd ${i}`);
    repo.git('update-ref', `refs/odd/${i}`, chain);
  });
  /** A commit of `tree` whose author and committer are both dated `date` (seconds). */
  const dated = (parents: string[], date: number, message: string) =>
    handMade(
      repo,
      tree,
      parents,
      [person('author', `${date} +0000`), person('committer', `${date} +0000`)],
      message,
    );
  // A merge of three of them, and one naming a parent twice.
  const merge = dated([repo.head(), t1, chain], 1705312100, 'octopus');
  repo.git('update-ref', 'refs/heads/octopus', merge);
  repo.git('update-ref', 'refs/heads/twice', dated([merge, merge], 1705312200, 'twice'));
  // A commit only a tag of a tag reaches.
  const tagged = dated([base], 1705312300, 'tagged only');
  repo.git('tag', '-a', '-m', 'only', 'only', tagged);
  repo.git('tag', '-a', '-m', 'only again', 'only-again', 'only');
  repo.git('tag', '-d', 'only');
  // Tags: annotated, a tag of a tag, of a tree, of a blob; a light one of a blob; notes; a stash.
  repo.git('tag', '-a', '-m', 'v1', 'v1', 'HEAD~2');
  repo.git('tag', '-a', '-m', 'of v1', 'v1-again', 'v1');
  repo.git('tag', '-a', '-m', 'a tree', 'tree-tag', tree);
  repo.git('tag', '-a', '-m', 'a blob', 'blob-tag', 'HEAD:a.txt');
  repo.git('tag', 'light-blob', 'HEAD:a.txt');
  repo.git('notes', 'add', '-m', 'a note', 'HEAD~1');
  repo.write('a.txt', 'stashed\n');
  repo.git('stash', 'push', '-q');
  // HEAD detached at a commit no ref has.
  repo.git('checkout', '-q', '--detach', 'HEAD~4');
  repo.commitFiles({ 'detached.txt': 'only HEAD has me\n' }, 'detached');
});

describe.skipIf(skip)('the native commit walk', () => {
  it('lists what git rev-list --all lists, in its order, loose', async () => {
    const objects = gitIn(repo.dir, ['count-objects', '-v']);
    expect(objects).toMatch(/^count: [1-9]/m);
    expect(objects).toMatch(/^in-pack: 0$/m);
    await expectAsGit(repo.dir);
    // The fixture is what it says: ties, the detached commit, the stash.
    const all = gitIn(repo.dir, ['rev-list', '--all']).trim().split('\n');
    expect(all).toContain(repo.head());
    expect(all).toContain(repo.git('rev-parse', 'refs/stash'));
    expect(all).toContain(repo.git('rev-parse', 'only-again^{commit}'));
    expect(all.length).toBeGreaterThan(30);
  });

  it('packed, and packed with some loose beside', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-walk-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const packed = join(dir, 'packed.git');
    execFileSync('git', ['clone', '-q', '--mirror', '--no-local', repo.dir, packed], { env: PLAIN_GIT_ENV });
    // A mirror has no HEAD of its own detached: give it one, and the stash and notes refs it copied.
    gitIn(packed, ['update-ref', '--no-deref', 'HEAD', repo.head()]);
    gitIn(packed, ['repack', '-adq']);
    await expectAsGit(packed);
    // New commits loose beside the pack, one of them dated far back.
    const tree = gitIn(packed, ['rev-parse', 'main^{tree}']).trim();
    const loose = handMade(
      { dir: packed } as TestRepo,
      tree,
      [gitIn(packed, ['rev-parse', 'main']).trim()],
      ['author A <a> 1 +0000', 'committer A <a> 1 +0000'],
      'loose',
    );
    gitIn(packed, ['update-ref', 'refs/heads/loose', loose]);
    expect(gitIn(packed, ['count-objects', '-v'])).toMatch(/^count: [1-9]/m);
    await expectAsGit(packed);
  });

  it('refuses a facts descriptor that is not one, null or undefined', () => {
    const reader = objectReader();
    const db = reader.open(join(repo.dir, '.git', 'objects'), []);
    try {
      const walk = (factsFd: unknown) =>
        reader.walkCommits(db, Buffer.alloc(20), false, 0, Buffer.alloc(4), () => {}, factsFd as number);
      expect(() => walk('3')).toThrow(/factsFd must be a file descriptor, null or undefined/);
      expect(() => walk(-1)).toThrow(/factsFd must be a file descriptor/);
    } finally {
      reader.close(db);
    }
  });

  it('an empty repository: no commit, an empty list', async () => {
    const empty = new TestRepo();
    cleanups.push(() => empty.cleanup());
    const file = await walkCommitsNatively({ binary: 'git', repo: empty.dir });
    expect(file?.size).toBe(0);
    file?.close();
  });

  it('gives way to git where it cannot walk: a missing commit, linked worktrees, a shallow clone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-walk-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const git = (path: string) => ({ binary: 'git', repo: path });

    // A missing commit: git's careful walk lists the rest and names it.
    const damaged = join(dir, 'damaged.git');
    execFileSync('git', ['clone', '-q', '--mirror', '--no-local', repo.dir, damaged], { env: PLAIN_GIT_ENV });
    const lost = gitIn(damaged, ['rev-parse', 'tie-b~1']).trim();
    deleteObjects(damaged, [lost]);
    expect(await walkCommitsNatively(git(damaged))).toBeNull();
    const listed = await listCommits(git(damaged));
    expect(listed.missing).toEqual([lost]);
    listed.list.close();

    // A linked worktree whose HEAD is a commit only it has: `--all` lists it, so git walks.
    const main = new TestRepo();
    cleanups.push(() => main.cleanup());
    main.commitFiles({ 'x.txt': 'x\n' }, 'one');
    main.commitFiles({ 'x.txt': 'y\n' }, 'two');
    const worktree = join(dir, 'worktree');
    main.git('worktree', 'add', '-q', '--detach', worktree, 'HEAD~1');
    const onlyThere =
      execFileSync('git', ['-C', worktree, 'commit', '-q', '--allow-empty', '-m', 'wt'], {
        env: {
          ...PLAIN_GIT_ENV,
          GIT_AUTHOR_NAME: 'A',
          GIT_AUTHOR_EMAIL: 'a@b',
          GIT_COMMITTER_NAME: 'A',
          GIT_COMMITTER_EMAIL: 'a@b',
        },
      }) && gitIn(worktree, ['rev-parse', 'HEAD']).trim();
    expect(await walkCommitsNatively(git(main.dir))).toBeNull();
    const withWorktree = await listCommits(git(main.dir));
    const ids = Array.from({ length: withWorktree.list.length }, (_, i) => withWorktree.list.at(i));
    expect(ids).toContain(onlyThere);
    expect(ids).toEqual(gitIn(main.dir, ['rev-list', '--all']).trim().split('\n'));
    withWorktree.list.close();

    // A shallow clone: its cut parents are git's to know.
    const shallow = join(dir, 'shallow');
    execFileSync('git', ['clone', '-q', '--depth', '2', `file://${repo.dir}`, shallow], {
      env: PLAIN_GIT_ENV,
    });
    expect(await walkCommitsNatively(git(shallow))).toBeNull();
  });

  it('listCommits takes the walk, no git rev-list: the same list as git rev-list --all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-walk-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    // A git that notes each command it is given.
    const binary = join(dir, 'git-noting');
    const log = join(dir, 'commands.txt');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(binary, `#!/bin/sh\necho "$*" >> "${log}"\nexec "${realGit}" "$@"\n`, { mode: 0o755 });
    const { list, missing } = await listCommits({ binary, repo: repo.dir });
    try {
      expect(missing).toEqual([]);
      const ids = Array.from({ length: list.length }, (_, i) => list.at(i));
      expect(ids).toEqual(gitIn(repo.dir, ['rev-list', '--all']).trim().split('\n'));
    } finally {
      list.close();
    }
    const commands = readFileSync(log, 'utf8');
    expect(commands).toMatch(/for-each-ref/);
    expect(commands).not.toMatch(/rev-list/);
  });
});
