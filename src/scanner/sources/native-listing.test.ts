import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildChangeShapes,
  type ChangeShapes,
  packedCopy,
  writeLiterally,
} from '../../../test/helpers/change-shapes.js';
import { PLAIN_GIT_ENV, TestRepo } from '../../../test/helpers/git-repo.js';
import { objectReaderForTests } from '../../../test/helpers/object-reader.js';
import type { ObjectDatabase } from './native-module.js';
import { MODE_ARGS, RAW_ARGS } from './tree-changes.js';

// The native listing of commits' tree changes (listChanges, native/object-reader/src/listing.rs) held
// to `git log --raw -c`, field for field and in order, on fixture histories: root commits, changes
// at every depth, files becoming directories and symlinks, mode changes, gitlinks, names git orders
// apart, merges of every shape, packed and loose, hand-made trees git would not write, and missing or
// damaged objects (left to git: status 2).

// ---------------------------------------------------------------------------------------------------
// The addon

const { skip, reader } = objectReaderForTests('native-listing.test.ts');

// ---------------------------------------------------------------------------------------------------
// Listings, the addon's and git's, in one shape

interface Side {
  /** Octal, six digits, as git prints it. */
  mode: string;
  id: string;
}
interface Change {
  /** The path's bytes as latin1: exact. */
  path: string;
  now: Side;
  /** One a parent, in order (one for a root commit). */
  before: Side[];
}
type Listing = { status: 0; parents: number; changes: Change[] } | { status: 2 };

const octal = (mode: number) => mode.toString(8).padStart(6, '0');

/** The records in `out`'s first `used` bytes; throws on a record cut short or more records than asked. */
function parseRecords(out: Buffer, used: number, asked: number): Listing[] {
  if (!Number.isInteger(used) || used < 0 || used > out.length) {
    throw new Error(`done said ${used} bytes used of a ${out.length}-byte buffer`);
  }
  const listings: Listing[] = [];
  let at = 0;
  const need = (n: number) => {
    if (at + n > used) throw new Error(`record ${listings.length} runs past the ${used} bytes used`);
  };
  const side = (): Side => {
    need(24);
    const s = { mode: octal(out.readUInt32LE(at)), id: out.toString('hex', at + 4, at + 24) };
    at += 24;
    return s;
  };
  while (at < used) {
    if (listings.length === asked)
      throw new Error(`${used - at} bytes after the records of all ${asked} commits`);
    const status = out[at]!;
    at += 1;
    if (status === 2) {
      listings.push({ status: 2 });
      continue;
    }
    if (status !== 0) throw new Error(`record ${listings.length}: status ${status}`);
    need(8);
    const parents = out.readUInt32LE(at);
    const count = out.readUInt32LE(at + 4);
    at += 8;
    const changes: Change[] = [];
    for (let k = 0; k < count; k++) {
      need(4);
      const length = out.readUInt32LE(at);
      at += 4;
      need(length);
      const path = out.toString('latin1', at, at + length);
      at += length;
      const now = side();
      const before = Array.from({ length: Math.max(parents, 1) }, side);
      changes.push({ path, now, before });
    }
    listings.push({ status: 0, parents, changes });
  }
  return listings;
}

/** One listChanges() call: the bytes of `out` its records used. */
function listInto(
  db: ObjectDatabase,
  ids: Buffer,
  out: Buffer,
  facts: Buffer | null = null,
): Promise<number> {
  return new Promise((resolve, reject) => {
    reader().listChanges(
      db,
      ids,
      out,
      (error, used) => {
        if (error) reject(error);
        else if (used === undefined) reject(new Error('done got neither an error nor a byte count'));
        else resolve(used);
      },
      facts,
    );
  });
}

/** The bytes of a listing's record in `out`. */
function recordBytes(record: Listing): number {
  if (record.status !== 0) return 1;
  return (
    9 +
    record.changes.reduce(
      (n, ch) => n + 4 + Buffer.byteLength(ch.path, 'latin1') + 24 * (1 + ch.before.length),
      0,
    )
  );
}

/** A commit's fact as the walk writes it (CommitFacts): tree, first parent (or zeros), parent count. */
function factOf(tree: string, parents: string[]): Buffer {
  const count = Buffer.alloc(4);
  count.writeUInt32LE(parents.length);
  return Buffer.concat([Buffer.from(tree, 'hex'), Buffer.from(parents[0] ?? ZERO, 'hex'), count]);
}

/** Each commit's fact, as git reads the commit. */
function gitFacts(gitDir: string, shas: string[]): Map<string, Buffer> {
  const lines = execFileSync(
    'git',
    ['--git-dir', gitDir, 'log', '--no-walk=unsorted', '--stdin', '--format=%H %T %P'],
    {
      env: PLAIN_GIT_ENV,
      encoding: 'latin1',
      input: shas.map((sha) => `${sha}\n`).join(''),
    },
  );
  const facts = new Map<string, Buffer>();
  for (const line of lines.trim().split('\n')) {
    const [sha, tree, ...parents] = line
      .trim()
      .split(' ')
      .filter((w) => w !== '');
    facts.set(sha!, factOf(tree!, parents));
  }
  return facts;
}

/**
 * The addon's listing of `shas`, through as many calls as it takes (each lists the first commits
 * whose records fit in `outSize` bytes; the rest are asked again). `calls` gets how many each listed.
 */
async function nativeListing(
  objects: string,
  shas: string[],
  outSize = 1 << 20,
  calls: number[] = [],
  facts: ReadonlyMap<string, Buffer> | null = null,
): Promise<Listing[]> {
  const db = reader().open(objects, []);
  try {
    const out = Buffer.alloc(outSize);
    const listings: Listing[] = [];
    while (listings.length < shas.length) {
      const rest = shas.slice(listings.length);
      out.fill(0xa5); // not zeros: bytes the addon did not write are noticed
      const restFacts = facts === null ? null : Buffer.concat(rest.map((sha) => facts.get(sha)!));
      const used = await listInto(db, Buffer.from(rest.join(''), 'hex'), out, restFacts);
      const listed = parseRecords(out, used, rest.length);
      if (listed.length === 0) throw new Error(`a call with ${rest.length} commits listed none`);
      calls.push(listed.length);
      listings.push(...listed);
    }
    return listings;
  } finally {
    reader().close(db);
  }
}

/** The scanner's command (tree-changes.ts, mode combined). */
const GIT_LOG = [...RAW_ARGS, ...MODE_ARGS.combined];

/** git's listing of `shas` (which it must list whole), parsed from its -z output. */
function gitListing(gitDir: string, shas: string[]): Listing[] {
  const out = execFileSync('git', ['--git-dir', gitDir, ...GIT_LOG], {
    input: shas.map((s) => `${s}\n`).join(''),
    env: PLAIN_GIT_ENV,
    maxBuffer: 1 << 30,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const listings: { sha: string; listing: Listing & { status: 0 } }[] = [];
  let pendingMeta: string | null = null;
  let at = 0;
  while (at < out.length) {
    let nul = out.indexOf(0, at);
    if (nul === -1) nul = out.length;
    const field = out.subarray(out[at] === 0x0a ? at + 1 : at, nul);
    at = nul + 1;
    if (pendingMeta !== null) {
      // `:<modes> <ids> <status>`, as many colons (and old sides) as parents, the path as the next field.
      const meta = pendingMeta;
      pendingMeta = null;
      const colons = meta.match(/^:+/)![0].length;
      const words = meta.slice(colons).split(' ');
      const modes = words.slice(0, colons + 1);
      const ids = words.slice(colons + 1, 2 * colons + 2);
      const current = listings.at(-1)!.listing;
      expect(colons).toBe(Math.max(current.parents, 1));
      current.changes.push({
        path: field.toString('latin1'),
        now: { mode: modes[colons]!, id: ids[colons]! },
        before: modes.slice(0, colons).map((mode, k) => ({ mode, id: ids[k]! })),
      });
      continue;
    }
    if (field.length === 0) continue;
    if (field[0] === 0x01) {
      const [sha, parents] = field.toString('latin1', 1).split('\x01');
      listings.push({
        sha: sha!,
        listing: { status: 0, parents: parents === '' ? 0 : parents!.split(' ').length, changes: [] },
      });
    } else if (field[0] === 0x3a) {
      pendingMeta = field.toString('latin1');
    } else {
      throw new Error(`git log printed ${JSON.stringify(field.toString('latin1'))}`);
    }
  }
  expect(listings.map((l) => l.sha)).toEqual(shas);
  return listings.map((l) => l.listing);
}

/** Whether git lists `sha` (it dies on a commit whose objects are missing or damaged). */
function gitLists(gitDir: string, sha: string): boolean {
  try {
    gitListing(gitDir, [sha]);
    return true;
  } catch {
    return false;
  }
}

/** Holds the addon's listing of `shas` to git's; returns both. */
async function expectSameAsGit(gitDir: string, shas: string[]) {
  const ours = await nativeListing(join(gitDir, 'objects'), shas);
  const theirs = gitListing(gitDir, shas);
  // Commit by commit, so that a failure names the commit.
  for (let k = 0; k < shas.length; k++) {
    expect({ commit: shas[k], ...ours[k] }).toEqual({ commit: shas[k], ...theirs[k] });
  }
  return { ours, theirs };
}

// ---------------------------------------------------------------------------------------------------
// Fixtures

const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

function newRepo(): TestRepo {
  const repo = new TestRepo();
  cleanups.push(() => repo.cleanup());
  return repo;
}

/** Builds once, on first use: tests run in a random order and several share a fixture. */
function once<T>(build: () => T): () => T {
  let value: { built: T } | undefined;
  return () => {
    value ??= { built: build() };
    return value.built;
  };
}

const gitDirOf = (repo: TestRepo) => join(repo.dir, '.git');
const ZERO = '0'.repeat(40);

/** Every commit of the repository, newest first (as the scanner lists them). */
function allCommits(gitDir: string): string[] {
  return execFileSync('git', ['--git-dir', gitDir, 'rev-list', '--all'], {
    env: PLAIN_GIT_ENV,
    encoding: 'latin1',
  })
    .split('\n')
    .filter((s) => s !== '');
}

/** The history with every shape of change (test/helpers/change-shapes.ts), built once. */
const history = once((): ChangeShapes => {
  const built = buildChangeShapes();
  cleanups.push(() => built.repo.cleanup());
  return built;
});

/** The history, its objects packed (repack -adf, loose copies pruned): the same commits. */
const packedHistory = once((): string => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-listing-packed-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return packedCopy(gitDirOf(history().repo), join(dir, 'repo.git'));
});

/** A raw tree entry. */
const entry = (mode: string, name: string, id: string) =>
  Buffer.concat([Buffer.from(`${mode} ${name}\0`, 'latin1'), Buffer.from(id, 'hex')]);

/** `git commit-tree`: a commit of `tree` with `parents`. */
const commitOf = (repo: TestRepo, tree: string, parents: string[], message = 'hand-made') =>
  repo.git('commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', message);

// ---------------------------------------------------------------------------------------------------

describe.skipIf(skip)('listChanges lists tree changes as git log --raw -c does', () => {
  it('every commit of a history with every shape of change and merge, loose', async () => {
    const { repo, commits } = history();
    const shas = allCommits(gitDirOf(repo));
    expect(shas).toEqual(expect.arrayContaining(Object.values(commits)));
    const { ours } = await expectSameAsGit(gitDirOf(repo), shas);
    const of = (name: string) => ours[shas.indexOf(commits[name]!)]!;
    // A few of git's listings spelt out, so that a git listing nothing would not pass unnoticed.
    const paths = (name: string) => {
      const l = of(name);
      return l.status === 0 ? l.changes.map((ch) => ch.path) : null;
    };
    // The file `a` sorts before `a-b`; the tree `a` it replaced after `a.c`.
    expect(paths('dirToFile')).toEqual(['a', 'a/inner.txt']);
    expect(paths('fileToDir')).toEqual(['f2d', 'f2d/deeper/z.txt', 'f2d/inside.txt']);
    expect(paths('depths')).toEqual(['README.md', 'docs/new/y.md', 'src/index.js', 'src/lib/deep/er/x.js']);
    expect(of('symlinks')).toMatchObject({
      status: 0,
      parents: 1,
      changes: [
        { path: 'link', now: { mode: '100644' }, before: [{ mode: '120000' }] },
        { path: 'to-link', now: { mode: '120000' }, before: [{ mode: '100644' }] },
      ],
    });
    expect(of('exec')).toMatchObject({
      changes: [{ path: 'tool.sh', now: { mode: '100755' }, before: [{ mode: '100644' }] }],
    });
    expect(of('gitlinkAdd')).toMatchObject({
      changes: [
        { path: 'sub', now: { mode: '160000', id: commits.root }, before: [{ mode: '000000', id: ZERO }] },
      ],
    });
    expect(of('gitlinkChange')).toMatchObject({ changes: [{ path: 'sub', now: { id: commits.depths } }] });
    expect(of('gitlinkRemove')).toMatchObject({
      changes: [{ path: 'sub', now: { mode: '000000', id: ZERO } }],
    });
    expect(of('empty')).toEqual({ status: 0, parents: 1, changes: [] });
    expect(paths('names')).toEqual(
      ['README.md', 'dír/ñame.txt', 'name with space.txt', '日本/新しい.md'].map((p) =>
        Buffer.from(p).toString('latin1'),
      ),
    );
    for (const root of ['root', 'otherRoot']) {
      const l = of(root);
      expect(l).toMatchObject({ status: 0, parents: 0 });
      if (l.status === 0) {
        expect(l.changes.length).toBeGreaterThan(2);
        for (const ch of l.changes) expect(ch.before).toEqual([{ mode: '000000', id: ZERO }]);
      }
    }
    expect(paths('cleanMerge')).toEqual(['README.md']);
    expect(of('cleanMerge')).toMatchObject({ parents: 2 });
    expect(paths('resolvedOurs')).toEqual([]);
    expect(paths('resolvedTheirs')).toEqual([]);
    expect(paths('resolvedAnew')).toEqual(['conflict.txt', 'deleted-in-merge.txt']);
    expect(of('resolvedAnew')).toMatchObject({
      changes: [{}, { now: { mode: '000000', id: ZERO }, before: [{ mode: '100644' }, { mode: '100644' }] }],
    });
    expect(paths('equalToParent')).toEqual([]);
    expect(paths('unrelatedMerge')).toEqual(['README.md']);
    expect(of('octopus')).toMatchObject({ status: 0, parents: 4 });
    expect(paths('octopus')).toEqual(['README.md', 'a-b']);
    expect(paths('dfMergeDir')).toEqual(['pd/q.txt', 'pd/t.txt']);
    expect(paths('dfMergeFile')).toEqual(['pd']);
    // pd's new content differs from both (identical) parents.
    expect(of('sameParentTwice')).toMatchObject({ status: 0, parents: 2, changes: [{ path: 'pd' }] });
  });

  it('the same history packed gives the same listing', async () => {
    const { repo } = history();
    const gitDir = packedHistory();
    expect(existsSync(join(gitDir, 'objects', 'pack'))).toBe(true);
    const shas = allCommits(gitDir);
    const { ours } = await expectSameAsGit(gitDir, shas);
    expect(ours).toEqual(await nativeListing(join(gitDirOf(repo), 'objects'), shas));
  });

  it('hand-made trees: unsorted, duplicate names, 100664 and 040000 modes, a name with a slash', async () => {
    const repo = newRepo();
    const blob = (text: string) => writeLiterally(repo, 'blob', Buffer.from(text));
    const tree = (...entries: Buffer[]) => writeLiterally(repo, 'tree', Buffer.concat(entries));
    const [x, y, z] = [blob('x\n'), blob('y\n'), blob('z\n')];
    const inner = tree(entry('100644', 'in', x));
    const sorted = tree(entry('100644', 'a', x), entry('40000', 'b', inner), entry('100644', 'c', y));
    const unsorted = tree(entry('100644', 'c', z), entry('100644', 'a', x), entry('40000', 'b', inner));
    const duplicates = tree(entry('100644', 'a', y), entry('100644', 'a', z), entry('100664', 'c', y));
    const padded = tree(entry('100664', 'a', x), entry('040000', 'b', inner), entry('100755', 'c', y));
    const slash = tree(entry('100644', 'a', x), entry('100644', 'b/in', z), entry('100644', 'c', y));
    const c1 = commitOf(repo, sorted, []);
    const c2 = commitOf(repo, unsorted, [c1]);
    const c3 = commitOf(repo, duplicates, [c2]);
    const c4 = commitOf(repo, padded, [c3]);
    const c5 = commitOf(repo, sorted, [c4]);
    const c6 = commitOf(repo, slash, [c5]);
    const c7 = commitOf(repo, unsorted, [c5, c3, c1]);
    const c8 = commitOf(repo, unsorted, []);
    const shas = [c1, c2, c3, c4, c5, c6, c7, c8];
    const gitDir = gitDirOf(repo);
    const listable = shas.filter((s) => gitLists(gitDir, s));
    expect(listable.length).toBeGreaterThanOrEqual(6);
    await expectSameAsGit(gitDir, listable);
    // Where git dies, the listing is left to it.
    const ours = await nativeListing(join(gitDir, 'objects'), shas);
    shas.forEach((s, k) => {
      if (!listable.includes(s)) expect({ s, ...ours[k] }).toEqual({ s, status: 2 });
    });
    // 100664 reads as 100644 and 040000 as 40000, as git reads them: against c4, c5 lists only c's mode.
    expect(ours[4]).toEqual({
      status: 0,
      parents: 1,
      changes: [{ path: 'c', now: { mode: '100644', id: y }, before: [{ mode: '100755', id: y }] }],
    });
  });

  it('damaged trees git dies on are left to git: a bad mode, an empty name, a tree cut short', async () => {
    const repo = newRepo();
    const x = writeLiterally(repo, 'blob', Buffer.from('x\n'));
    const good = writeLiterally(repo, 'tree', entry('100644', 'a', x));
    const damaged = [
      entry('100648', 'a', x), // not octal
      entry(' 100644', 'a', x), // a space first
      entry('100644', '', x), // no name
      entry('100644', 'a', x).subarray(0, 20), // cut short
      Buffer.concat([entry('100644', 'a', x), Buffer.from('100644 b')]), // an entry without its NUL and id
      Buffer.from('100644a\0'.padEnd(40, 'x'), 'latin1'), // no space after the mode
    ].map((content) => writeLiterally(repo, 'tree', content));
    const root = commitOf(repo, good, []);
    const commits = damaged.flatMap((tree) => [commitOf(repo, tree, []), commitOf(repo, tree, [root])]);
    // A damaged tree below an unchanged path is never read, by git or here.
    const y = writeLiterally(repo, 'blob', Buffer.from('y\n'));
    const below = (blob: string) =>
      writeLiterally(
        repo,
        'tree',
        Buffer.concat([entry('100644', 'a', blob), entry('40000', 'd', damaged[0]!)]),
      );
    const unchangedBelow = commitOf(repo, below(y), [commitOf(repo, below(x), [])]);
    const gitDir = gitDirOf(repo);
    for (const sha of commits) expect(gitLists(gitDir, sha)).toBe(false);
    expect(gitLists(gitDir, unchangedBelow)).toBe(true);
    const ours = await nativeListing(join(gitDir, 'objects'), [...commits, root, unchangedBelow]);
    expect(ours.slice(0, commits.length)).toEqual(commits.map(() => ({ status: 2 })));
    await expectSameAsGit(gitDir, [root, unchangedBelow]);
  });

  it('a commit whose tree (or a parent whose tree) is gone is left to git, as are ids of other objects', async () => {
    const repo = newRepo();
    repo.commitFiles({ 'keep.txt': 'keep\n' });
    const lost = repo.commitFiles({ 'lost.txt': 'lost\n' });
    const child = repo.commitFiles({ 'after.txt': 'after\n' });
    const grandchild = repo.commitFiles({ 'later.txt': 'later\n' });
    const tree = repo.git('rev-parse', `${lost}^{tree}`);
    const blob = repo.git('rev-parse', `${lost}:keep.txt`);
    const gitDir = gitDirOf(repo);
    const objects = join(gitDir, 'objects');
    rmSync(join(objects, tree.slice(0, 2), tree.slice(2)));
    expect(gitLists(gitDir, lost)).toBe(false);
    expect(gitLists(gitDir, child)).toBe(false);
    const missing = 'd'.repeat(40);
    const ours = await nativeListing(objects, [lost, child, grandchild, tree, blob, missing, grandchild]);
    const theirs = gitListing(gitDir, [grandchild]);
    expect(ours).toEqual([
      { status: 2 },
      { status: 2 },
      theirs[0],
      { status: 2 },
      { status: 2 },
      { status: 2 },
      theirs[0],
    ]);
  });

  it('a full buffer ends a call; the rest are asked again; a record larger than the buffer is left to git', async () => {
    const { repo } = history();
    const gitDir = gitDirOf(repo);
    const shas = allCommits(gitDir);
    const whole = await nativeListing(join(gitDir, 'objects'), shas);
    const size = 160; // holds a few small records, not a root commit's
    const calls: number[] = [];
    const small = await nativeListing(join(gitDir, 'objects'), shas, size, calls);
    expect(calls.length).toBeGreaterThan(1);
    expect(Math.max(...calls)).toBeGreaterThan(1); // several records in one call
    let tooLarge = 0;
    shas.forEach((sha, k) => {
      const record = whole[k]!;
      if (recordBytes(record) > size) {
        tooLarge++;
        expect({ sha, ...small[k] }).toEqual({ sha, status: 2 });
      } else {
        expect({ sha, ...small[k] }).toEqual({ sha, ...record });
      }
    });
    expect(tooLarge).toBeGreaterThan(0);
  });

  it("given the walk's facts of each commit, the same listing, loose and packed, in calls cut short", async () => {
    const { repo } = history();
    for (const gitDir of [gitDirOf(repo), packedHistory()]) {
      const shas = allCommits(gitDir);
      const facts = gitFacts(gitDir, shas);
      expect(facts.size).toBe(shas.length);
      const theirs = gitListing(gitDir, shas);
      const calls: number[] = [];
      // Room for the largest record: every call but the last is cut short.
      const size = Math.max(...theirs.map(recordBytes));
      const ours = await nativeListing(join(gitDir, 'objects'), shas, size, calls, facts);
      expect(calls.length).toBeGreaterThan(1);
      for (let k = 0; k < shas.length; k++) {
        expect({ commit: shas[k], ...ours[k] }).toEqual({ commit: shas[k], ...theirs[k] });
      }
    }
  });

  it("takes a commit's tree and parent from its fact, and a merge's from the merge itself", async () => {
    const repo = newRepo();
    const base = repo.commitFiles({ 'a.txt': 'a\n', 'b.txt': 'b\n' }, 'base');
    const one = repo.commitFiles({ 'a.txt': 'a changed\n' }, 'one');
    const other = repo.commitFiles({ 'b.txt': 'b changed\n', 'c.txt': 'c\n' }, 'other');
    const merge = commitOf(repo, repo.git('rev-parse', `${other}^{tree}`), [one, base], 'merge');
    const gitDir = gitDirOf(repo);
    const objects = join(gitDir, 'objects');
    const tree = (sha: string) => repo.git('rev-parse', `${sha}^{tree}`);
    // `one`'s fact names `other`'s tree and `base` as its parent: listed, it is that diff, not its own.
    const told = new Map([[one, factOf(tree(other), [base])]]);
    const [listed] = await nativeListing(objects, [one], 1 << 20, [], told);
    const [asTold] = gitListing(gitDir, [commitOf(repo, tree(other), [base], 'as told')]);
    expect(listed).toEqual(asTold);
    expect(listed).not.toEqual(gitListing(gitDir, [one])[0]);
    // A root commit's fact: listed against the empty tree.
    const [root] = await nativeListing(
      objects,
      [base],
      1 << 20,
      [],
      new Map([[base, factOf(tree(one), [])]]),
    );
    expect(root).toEqual(gitListing(gitDir, [commitOf(repo, tree(one), [], 'root as told')])[0]);
    // A merge's fact says one parent of two: the merge is read, whatever its fact says.
    const [merged] = await nativeListing(
      objects,
      [merge],
      1 << 20,
      [],
      new Map([[merge, factOf(tree(base), [other, one])]]),
    );
    expect(merged).toEqual(gitListing(gitDir, [merge])[0]);
    expect(merged).toMatchObject({ status: 0, parents: 2 });
  });

  it('refuses bad arguments', () => {
    const { repo } = history();
    const db = reader().open(join(gitDirOf(repo), 'objects'), []);
    try {
      const done = () => {};
      expect(() =>
        reader().listChanges(db, Buffer.alloc(40), Buffer.alloc(64), done, Buffer.alloc(44)),
      ).toThrow(/one for each commit id/);
      expect(() =>
        reader().listChanges(db, Buffer.alloc(20), Buffer.alloc(64), done, Buffer.alloc(43)),
      ).toThrow(/44-byte facts/);
      expect(() =>
        reader().listChanges(db, Buffer.alloc(20), Buffer.alloc(64), done, 'facts' as unknown as Buffer),
      ).toThrow(/44-byte facts/);
      expect(() => reader().listChanges(db, Buffer.alloc(19), Buffer.alloc(64), done)).toThrow(/20-byte ids/);
      expect(() => reader().listChanges(db, Buffer.alloc(20), Buffer.alloc(8), done)).toThrow(
        /at least 9 bytes/,
      );
      expect(() =>
        reader().listChanges({} as ObjectDatabase, Buffer.alloc(20), Buffer.alloc(64), done),
      ).toThrow(/not a database/);
    } finally {
      reader().close(db);
    }
  });

  it('a closed database fails the call through done', async () => {
    const { repo } = history();
    const db = reader().open(join(gitDirOf(repo), 'objects'), []);
    reader().close(db);
    await expect(listInto(db, Buffer.from(repo.head(), 'hex'), Buffer.alloc(64))).rejects.toThrow(/closed/);
  });
});

// ---------------------------------------------------------------------------------------------------
// listParentChanges: each parent apart (`-m`), limited to paths as git's literal pathspecs

/** One commit's per-parent listing: every parent's changes in turn, one old side each. */
type ParentListing = { status: 0; parents: number; changes: Change[] } | { status: 2 };

/** The addon's per-parent records of `shas` (one call: the fixtures fit), each change one old side. */
async function nativeParentListing(objects: string, shas: string[], paths: string[] | null) {
  const db = reader().open(objects, []);
  try {
    const out = Buffer.alloc(1 << 20, 0xa5);
    const limit = paths === null ? null : Buffer.from(paths.map((p) => `${p}\n`).join(''), 'latin1');
    const used = await new Promise<number>((resolve, reject) =>
      reader().listParentChanges(db, Buffer.from(shas.join(''), 'hex'), limit, out, (error, n) =>
        error ? reject(error) : resolve(n!),
      ),
    );
    // The per-parent records are listChanges' with one old side: parse them as a root commit's.
    const listings: ParentListing[] = [];
    let at = 0;
    while (at < used) {
      const status = out[at++]!;
      if (status === 2) {
        listings.push({ status: 2 });
        continue;
      }
      const parents = out.readUInt32LE(at);
      const count = out.readUInt32LE(at + 4);
      at += 8;
      const changes: Change[] = [];
      for (let k = 0; k < count; k++) {
        const length = out.readUInt32LE(at);
        const path = out.toString('latin1', at + 4, at + 4 + length);
        at += 4 + length;
        const now = { mode: octal(out.readUInt32LE(at)), id: out.toString('hex', at + 4, at + 24) };
        const before = [
          { mode: octal(out.readUInt32LE(at + 24)), id: out.toString('hex', at + 28, at + 48) },
        ];
        at += 48;
        changes.push({ path, now, before });
      }
      listings.push({ status: 0, parents, changes });
    }
    expect(listings).toHaveLength(shas.length);
    return listings;
  } finally {
    reader().close(db);
  }
}

/** git's per-parent listing of the merges `shas` (tree-changes.ts's command), changes by merge. */
function gitParentListing(gitDir: string, shas: string[], paths: string[] | null): Map<string, Change[]> {
  const out = execFileSync(
    'git',
    ['--git-dir', gitDir, ...RAW_ARGS, ...MODE_ARGS['per-parent'], ...(paths === null ? [] : ['--sparse'])],
    {
      // Paths are bytes as latin1, as the scanner gives them.
      input: Buffer.from(
        shas.map((s) => `${s}\n`).join('') +
          (paths === null ? '' : `--\n${paths.map((p) => `${p}\n`).join('')}`),
        'latin1',
      ),
      env: PLAIN_GIT_ENV,
      maxBuffer: 1 << 30,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const byCommit = new Map<string, Change[]>();
  let current: Change[] = [];
  let meta: string | null = null;
  for (const raw of out.toString('latin1').split('\0')) {
    const field = raw.startsWith('\n') ? raw.slice(1) : raw;
    if (meta !== null) {
      const words = meta.slice(1).split(' ');
      current.push({
        path: field,
        now: { mode: words[1]!, id: words[3]! },
        before: [{ mode: words[0]!, id: words[2]! }],
      });
      meta = null;
    } else if (field.startsWith('\x01')) {
      const sha = field.slice(1).split('\x01')[0]!;
      // A merge is printed once per parent (when that parent's diff is not empty), in order.
      current = byCommit.get(sha) ?? [];
      byCommit.set(sha, current);
    } else if (field.startsWith(':')) {
      expect(field.startsWith('::')).toBe(false);
      meta = field;
    } else if (field !== '') {
      throw new Error(`git log printed ${JSON.stringify(field)}`);
    }
  }
  return byCommit;
}

/** Every merge of the repository, newest first. */
const allMerges = (gitDir: string) => allCommits(gitDir).filter((sha) => parentsOf(gitDir, sha).length > 1);
const parentsOf = (gitDir: string, sha: string) =>
  execFileSync('git', ['--git-dir', gitDir, 'rev-parse', `${sha}^@`], {
    env: PLAIN_GIT_ENV,
    encoding: 'latin1',
  })
    .split('\n')
    .filter((s) => s !== '');

/** Holds the addon's per-parent listing of every merge to git's, with `paths` as the limit. */
async function expectParentListingAsGit(gitDir: string, paths: string[] | null) {
  const merges = allMerges(gitDir);
  const ours = await nativeParentListing(join(gitDir, 'objects'), merges, paths);
  const theirs = gitParentListing(gitDir, merges, paths);
  for (let k = 0; k < merges.length; k++) {
    const sha = merges[k]!;
    expect({ sha, ...ours[k] }).toEqual({
      sha,
      status: 0,
      parents: parentsOf(gitDir, sha).length,
      changes: theirs.get(sha) ?? [],
    });
  }
  return { merges, ours };
}

describe.skipIf(skip)('listParentChanges lists each parent apart as git log --raw -m does', () => {
  it('every merge of the history, loose and packed, with no limit', async () => {
    const { repo, commits } = history();
    for (const gitDir of [gitDirOf(repo), packedHistory()]) {
      const { merges, ours } = await expectParentListingAsGit(gitDir, null);
      expect(merges).toEqual(
        expect.arrayContaining([commits.octopus, commits.cleanMerge, commits.resolvedAnew]),
      );
      // The octopus against each of its four parents: far more than its combined listing's two paths.
      const octopus = ours[merges.indexOf(commits.octopus!)]!;
      expect(octopus.status === 0 && octopus.changes.length).toBeGreaterThan(4);
      // A merge equal to its first parent still differs from its second.
      const equal = ours[merges.indexOf(commits.equalToParent!)]!;
      expect(equal.status === 0 && equal.changes.length).toBeGreaterThan(0);
    }
  });

  it('limited to paths: files, directories, first components, names a prefix of others, paths in no tree', async () => {
    const { repo } = history();
    const limits = [
      ['README.md'],
      ['pd'],
      ['pd/q.txt', 'octopus/o2.txt'],
      ['a'],
      ['a-b', 'src/lib'],
      ['conflict.txt', 'deleted-in-merge.txt', 'nowhere/at/all'],
      ['octopus', 'README.md', 'pd/r'],
      [Buffer.from('dír/ñame.txt').toString('latin1'), 'name with space.txt'],
    ];
    for (const gitDir of [gitDirOf(repo), packedHistory()]) {
      for (const paths of limits) {
        const { ours } = await expectParentListingAsGit(gitDir, paths);
        // The limit holds: every change is at a path of the limit or under one.
        for (const listing of ours) {
          if (listing.status !== 0) continue;
          for (const change of listing.changes) {
            expect(paths.some((p) => change.path === p || change.path.startsWith(`${p}/`))).toBe(true);
          }
        }
      }
    }
    // A limit some merges do change there, so that the comparison is not of empty listings alone.
    const { ours } = await expectParentListingAsGit(gitDirOf(repo), ['README.md', 'pd']);
    expect(ours.filter((l) => l.status === 0 && l.changes.length > 0).length).toBeGreaterThan(3);
  });

  it('refuses paths that are not null or a Buffer of line-ended paths', () => {
    const { repo } = history();
    const db = reader().open(join(gitDirOf(repo), 'objects'), []);
    try {
      const done = () => {};
      for (const paths of [
        Buffer.from('README.md'),
        'README.md\n' as unknown as Buffer,
        7 as unknown as Buffer,
      ]) {
        expect(() => reader().listParentChanges(db, Buffer.alloc(20), paths, Buffer.alloc(64), done)).toThrow(
          /paths must be null or a Buffer/,
        );
      }
    } finally {
      reader().close(db);
    }
  });
});
