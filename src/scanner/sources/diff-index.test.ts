import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildChangeShapes, type Packing, packedCopy } from '../../../test/helpers/change-shapes.js';
import { buildEdgeHistory } from '../../../test/helpers/edge-history.js';
import { PLAIN_GIT_ENV, TestRepo } from '../../../test/helpers/git-repo.js';
import { objectReaderForTests } from '../../../test/helpers/object-reader.js';
import { renderReport } from '../report/index.js';
import { scanRepository } from '../scan.js';
import { withDiffIndex } from './diff-index.js';
import { LOG_ARGS } from './history.js';

// The diff pass's own pack indexes (diff-index.ts, native diff_index.rs): git diffs each commit of
// histories with every shape of change and rename from the indexes written for it alone, with no
// other way to find an object (no alternate), and prints what it prints from the repository's own.

const { skip, reader } = objectReaderForTests('diff-index.test.ts');

const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const git = (gitDir: string, ...args: string[]) =>
  execFileSync('git', ['--git-dir', gitDir, ...args], {
    env: PLAIN_GIT_ENV,
    encoding: 'latin1',
    maxBuffer: 1 << 30,
  });

/** A bare copy of `source` packed as `packing` says (change-shapes.ts). */
const packed = (source: string, packing: Packing) =>
  packedCopy(source, join(tempDir('svc-diff-index-'), 'repo.git'), packing);

/** The edge history (and its planted secrets) with renames git pairs by content. */
const planted: string[] = [];
function withRenames(): TestRepo {
  const repo = new TestRepo();
  cleanups.push(() => repo.cleanup());
  planted.push(...buildEdgeHistory(repo));
  // Renames git pairs by content (-M): a file moved and edited, two moved at once across directories.
  const body = Array.from({ length: 40 }, (_, i) => `line ${i} of a file that moves`).join('\n');
  repo.commitFiles({ 'moves/a.txt': `${body}\n`, 'moves/b.txt': `${body}\nb\n` }, 'to move');
  repo.remove('moves/a.txt').remove('moves/b.txt');
  repo.write('moved/a2.txt', `${body}\nedited after the move\n`).write('elsewhere/b.txt', `${body}\nb\n`);
  repo.commit('moved');
  return repo;
}

const histories = {
  'every shape of change': () => {
    const built = buildChangeShapes();
    cleanups.push(() => built.repo.cleanup());
    return join(built.repo.dir, '.git');
  },
  'renames, merges and edge cases': () => join(withRenames().dir, '.git'),
};

/** git's diff pass over `commits`, from the repository's objects or from `objects` instead. */
function diffPass(gitDir: string, commits: string[], objects?: string) {
  const result = spawnSync(
    'git',
    ['--git-dir', gitDir, '-c', 'core.multiPackIndex=false', ...LOG_ARGS, '--stdin'],
    {
      env: objects === undefined ? PLAIN_GIT_ENV : { ...PLAIN_GIT_ENV, GIT_OBJECT_DIRECTORY: objects },
      input: commits.map((c) => `${c}\n`).join(''),
      maxBuffer: 1 << 30,
    },
  );
  return {
    code: result.status,
    stdout: result.stdout.toString('latin1'),
    stderr: result.stderr.toString('latin1'),
  };
}

/** Writes the diff indexes of `commits` into a new object directory with no alternate; its path and counts. */
async function indexesOf(gitDir: string, commits: string[]): Promise<{ objects: string; counts: number[] }> {
  const objects = tempDir('svc-diff-objects-test-');
  mkdirSync(join(objects, 'pack'));
  const module = reader();
  const db = module.open(join(gitDir, 'objects'), []);
  const out = Buffer.alloc(12);
  try {
    await new Promise<void>((resolve, reject) =>
      module.writeDiffIndex(db, Buffer.from(commits.join(''), 'hex'), join(objects, 'pack'), out, (e) =>
        e === null ? resolve() : reject(e),
      ),
    );
  } finally {
    module.close(db);
  }
  return { objects, counts: [out.readUInt32LE(0), out.readUInt32LE(4), out.readUInt32LE(8)] };
}

describe.skipIf(skip)('writeDiffIndex indexes every object git diff reads', () => {
  for (const [name, build] of Object.entries(histories)) {
    for (const packing of ['offsets', 'ids', 'two packs'] as const) {
      it(`${name}, packed with deltas by ${packing === 'two packs' ? 'offset, in two packs' : packing}`, async () => {
        const gitDir = packed(build(), packing);
        const total = Number(git(gitDir, 'count-objects', '-v').match(/^in-pack: (\d+)$/m)![1]);
        const commits = git(gitDir, 'rev-list', '--all').trim().split('\n');
        expect(commits.length).toBeGreaterThan(15);
        // Each commit alone: its diff from its own indexes, nothing else to look in.
        for (const commit of commits) {
          const { objects, counts } = await indexesOf(gitDir, [commit]);
          const ours = diffPass(gitDir, [commit], objects);
          const theirs = diffPass(gitDir, [commit]);
          expect(theirs.code).toBe(0);
          expect({ commit, ...ours }).toEqual({ commit, ...theirs });
          // Only what the diff needs: a small part of the history.
          expect(counts[1]).toBeGreaterThan(0);
          expect(counts[1]).toBeLessThan(total);
        }
        // And all of them at once, as the scan's diff pass runs.
        const { objects, counts } = await indexesOf(gitDir, commits);
        expect(diffPass(gitDir, commits, objects)).toEqual(diffPass(gitDir, commits));
        expect(counts[2]).toBe(packing === 'two packs' ? 2 : 1);
      });
    }
  }

  it("writes git's version-2 index, as large as the pack's, its unneeded entries holes", async () => {
    const gitDir = packed(histories['every shape of change'](), 'offsets');
    const [commit] = git(gitDir, 'rev-list', '-1', 'HEAD').trim().split('\n');
    const { objects, counts } = await indexesOf(gitDir, [commit!]);
    const [name] = readdirSync(join(objects, 'pack')).filter((f) => f.endsWith('.idx'));
    const ours = join(objects, 'pack', name!);
    const theirs = join(gitDir, 'objects', 'pack', name!);
    const total = Number(git(gitDir, 'count-objects', '-v').match(/^in-pack: (\d+)$/m)![1]);
    // git show-index reads it: every real entry as in the pack's own index, the rest id 0.
    const entries = (idx: string) =>
      execFileSync('git', ['show-index'], { input: readFileSync(idx), encoding: 'latin1' })
        .trim()
        .split('\n');
    const listed = entries(ours);
    expect(listed).toHaveLength(total);
    const real = listed.filter((line) => !line.includes(' 0000000000000000000000000000000000000000 '));
    expect(real).toHaveLength(counts[1]!);
    const own = new Set(entries(theirs));
    for (const line of real) expect(own.has(line)).toBe(true);
    // The pack's checksum, which git compares, is the pack index's own.
    const trailer = (idx: string) => readFileSync(idx).subarray(-40, -20).toString('hex');
    expect(trailer(ours)).toBe(trailer(theirs));
  });
});

describe.skipIf(skip)('the scan diffs through the indexes', () => {
  it('withDiffIndex gives git an object directory of indexes only, and removes it after', async () => {
    const gitDir = packed(histories['renames, merges and edge cases'](), 'offsets');
    const commits = git(gitDir, 'rev-list', '--all').trim().split('\n');
    let seen = '';
    // Written whatever the size of the repository's own indexes (0): these are a few kilobytes.
    await withDiffIndex(
      { binary: 'git', repo: gitDir },
      commits,
      async (runner, index) => {
        expect(index).toMatchObject({ packs: 1 });
        seen = runner.env?.GIT_OBJECT_DIRECTORY ?? '';
        expect(runner.options).toEqual(['-c', 'core.multiPackIndex=false']);
        // The repository's objects are its alternate; its pack is linked, not copied.
        expect(readFileSync(join(seen, 'info', 'alternates'), 'utf8')).toBe(`${join(gitDir, 'objects')}\n`);
        const files = readdirSync(join(seen, 'pack'));
        expect(
          files
            .filter((f) => f.endsWith('.pack'))
            .every((f) => lstatSync(join(seen, 'pack', f)).isSymbolicLink()),
        ).toBe(true);
        // No secret of the history (all of them in these diffs) is in a file written here.
        expect(planted.length).toBeGreaterThan(5);
        for (const file of files.filter((f) => f.endsWith('.idx'))) {
          const bytes = readFileSync(join(seen, 'pack', file));
          for (const secret of planted) expect(bytes.includes(secret)).toBe(false);
        }
      },
      0,
    );
    expect(seen).toMatch(/svc-diff-objects-/);
    expect(existsSync(seen)).toBe(false);
  });

  it('and leaves git as it is where nothing is packed', async () => {
    const repo = new TestRepo();
    cleanups.push(() => repo.cleanup());
    const commit = repo.commitFiles({ 'a.txt': 'a\n' });
    const runner = { binary: 'git', repo: repo.dir };
    await withDiffIndex(
      runner,
      [commit],
      async (given, index) => {
        expect(index).toBeNull();
        expect(given).toBe(runner);
      },
      0,
    );
  });

  it("and where the repository's pack indexes, its alternates' too, are smaller than the bound", async () => {
    const gitDir = packed(histories['every shape of change'](), 'offsets');
    const commits = git(gitDir, 'rev-list', '--all').trim().split('\n');
    const idxBytes = readdirSync(join(gitDir, 'objects', 'pack'))
      .filter((f) => f.endsWith('.idx'))
      .reduce((sum, f) => sum + lstatSync(join(gitDir, 'objects', 'pack', f)).size, 0);
    expect(idxBytes).toBeGreaterThan(1000);
    const runner = { binary: 'git', repo: gitDir };
    const indexed = (fromBytes?: number) =>
      withDiffIndex(
        runner,
        commits,
        async (given, index) => (index === null ? given === runner : index.packs),
        fromBytes,
      );
    // The default bound is far above these few kilobytes: git maps the repository's own.
    expect(await indexed()).toBe(true);
    expect(await indexed(idxBytes + 1)).toBe(true);
    expect(await indexed(idxBytes)).toBe(1);
    // A clone that borrows every object from it through info/alternates maps the same indexes.
    const borrower = join(tempDir('svc-diff-index-alt-'), 'repo.git');
    execFileSync('git', ['clone', '--quiet', '--bare', '--shared', gitDir, borrower], { env: PLAIN_GIT_ENV });
    expect(readdirSync(join(borrower, 'objects', 'pack')).filter((f) => f.endsWith('.idx'))).toEqual([]);
    const borrowed = { binary: 'git', repo: borrower };
    const given = (fromBytes: number) =>
      withDiffIndex(borrowed, commits, async (_, index) => index?.packs ?? 0, fromBytes);
    expect(await given(idxBytes + 1)).toBe(0);
    expect(await given(idxBytes)).toBe(1);
  });

  it('and where no temporary directory can be made', async () => {
    const gitDir = packed(histories['every shape of change'](), 'offsets');
    const [commit] = git(gitDir, 'rev-list', '-1', 'HEAD').trim().split('\n');
    const runner = { binary: 'git', repo: gitDir };
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = join(tempDir('svc-no-tmp-'), 'not-there');
    try {
      const answer = await withDiffIndex(
        runner,
        [commit!],
        async (given, index) => {
          expect(index).toBeNull();
          expect(given).toBe(runner);
          return 'diffed';
        },
        0,
      );
      expect(answer).toBe('diffed');
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it('finds what blob-first finds on a packed history, through the indexes', async () => {
    const source = withRenames();
    const gitDir = packed(join(source.dir, '.git'), 'ids');
    const dir = tempDir('svc-diff-index-git-');
    // A git that notes, for each diff pass run, the object directory it was given.
    const log = join(dir, 'objects.txt');
    const binary = join(dir, 'git');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(
      binary,
      `#!/bin/sh\ncase " $* " in *" -p "*) echo "\${GIT_OBJECT_DIRECTORY:-none}" >> "${log}" ;; esac\nexec "${realGit}" "$@"\n`,
      { mode: 0o755 },
    );
    const blobFirst = await scanRepository({
      path: gitDir,
      method: 'blob-first',
      gitBinary: binary,
      diffIndexFromBytes: 0,
    });
    const diff = await scanRepository({ path: gitDir, method: 'diff' });
    const report = (r: typeof diff) => renderReport(r, 'json', { toolVersion: 'test' });
    expect(diff.findings.length).toBeGreaterThan(5);
    expect(report(blobFirst)).toBe(report(diff));
    const dirs = readFileSync(log, 'utf8').trim().split('\n');
    expect(dirs.length).toBeGreaterThan(0);
    for (const d of dirs) {
      expect(d).toMatch(/svc-diff-objects-/);
      expect(existsSync(d)).toBe(false);
    }
    // By default a history this small is diffed from the repository's own indexes: the same report.
    writeFileSync(log, '');
    const plain = await scanRepository({ path: gitDir, method: 'blob-first', gitBinary: binary });
    expect(report(plain)).toBe(report(diff));
    const plainDirs = readFileSync(log, 'utf8').trim().split('\n');
    expect(plainDirs.length).toBe(dirs.length);
    expect(new Set(plainDirs)).toEqual(new Set(['none']));
  });
});
