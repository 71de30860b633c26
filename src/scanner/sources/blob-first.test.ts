import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { liveChildren } from '../../../test/helpers/child-processes.js';
import { buildEdgeHistory, deleteObjects } from '../../../test/helpers/edge-history.js';
import { fakeCodehostToken } from '../../../test/helpers/fake-secrets.js';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { renderReport } from '../report/index.js';
import { scanRepository } from '../scan.js';
import type { ScanResult } from '../types.js';
import { listTreeChanges } from './tree-changes.js';

// The listing as it is, watched: which commits the merges' per-parent listing is given (natively
// or by git).
vi.mock('./tree-changes.js', async (original) => {
  const actual = await original<typeof import('./tree-changes.js')>();
  return { ...actual, listTreeChanges: vi.fn(actual.listTreeChanges) };
});

/** The JSON report (it carries no times, so two scans of one history must give the same bytes). */
const report = (r: ScanResult) => renderReport(r, 'json', { toolVersion: 'test' });

async function bothWays(path: string): Promise<{ blobFirst: ScanResult; diff: ScanResult }> {
  const blobFirst = await scanRepository({ path, method: 'blob-first' });
  const diff = await scanRepository({ path, method: 'diff' });
  return { blobFirst, diff };
}

/**
 * A git that records, for each run whose arguments include `option` (`-p`: the diff pass), its exit code and how many commits it was given on its standard
 * input (before any `--`). The scan uses it as its git binary.
 */
/**
 * One `git log` run: its exit code, how many commits it was given, whether it mapped its pack in
 * wide windows (a lone commit's or a run read whole: history.ts WIDE_WINDOW_LOG_ARGS), and whether
 * its diffs were limited to paths.
 */
type LogRun = [code: number, commits: number, wide: number, limited: number];

function recordingGit(dir: string, option: string): { binary: string; runs(): LogRun[] } {
  const log = join(dir, `runs${option}.txt`);
  const binary = join(dir, `git-recording${option}`);
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(
    binary,
    [
      '#!/bin/sh',
      'case " $* " in',
      `  *" ${option} "*) input=$(mktemp); cat > "$input"; "${realGit}" "$@" < "$input"; code=$?`,
      `    wide=0; case " $* " in *" core.packedGitWindowSize=32m "*) wide=1 ;; esac`,
      `    echo "$code $(sed '/^--$/q' "$input" | grep -c '^[0-9a-f]') $wide $(grep -c '^--$' "$input")" >> "${log}"`,
      `    rm -f "$input"; exit $code ;;`,
      'esac',
      `exec "${realGit}" "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  const runs = () =>
    readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' ').map(Number) as LogRun);
  return { binary, runs };
}

/** A topic branch off `main` adding one file, merged back with a merge commit. */
function mergeTopic(history: TestRepo, i: number): void {
  history.git('checkout', '-q', '-b', `topic${i}`, 'main');
  history.commitFiles({ [`topics/t${i}.txt`]: `topic ${i}\n`.repeat(3) }, `topic ${i}`);
  history.git('checkout', '-q', 'main');
  history.git('merge', '-q', '--no-ff', '--no-edit', `topic${i}`);
}

/**
 * A mirror clone of `source` with the objects `revs` name deleted, given to `use`, then removed.
 */
async function withDamagedMirror(
  source: TestRepo,
  revs: string[],
  use: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-damaged-'));
  try {
    execFileSync('git', ['clone', '-q', '--no-local', '--mirror', source.dir, dir]);
    deleteObjects(
      dir,
      revs.map((rev) => source.git('rev-parse', rev)),
    );
    await use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let repo: TestRepo;
let secrets: string[];
beforeAll(() => {
  repo = new TestRepo();
  secrets = buildEdgeHistory(repo);
});
afterAll(() => repo.cleanup());

describe('blob-first reading gives the diff path report, byte for byte', () => {
  it('on merges, renames, moved and duplicated lines, binary files, long lines and odd paths', async () => {
    const { blobFirst, diff } = await bothWays(repo.dir);
    expect(report(blobFirst)).toBe(report(diff));
    // The history is not trivial: most planted secrets are found, some by merges.
    expect(diff.findings.length).toBeGreaterThanOrEqual(secrets.length - 2);
    const merges = new Set(repo.git('rev-list', '--merges', '--all').split('\n'));
    expect(diff.findings.some((f) => merges.has(f.commit ?? ''))).toBe(true);
  });

  // A version of a long file (later versions are diffed against it), a blob a merge brings in from
  // its branch, and a whole tree.
  const damage = ['main~14:src/long.js', 'side:side/feature.js', 'main~8^{tree}'];

  it('on a clone with missing blobs and a missing tree', async () => {
    await withDamagedMirror(repo, damage, async (dir) => {
      const { blobFirst, diff } = await bothWays(dir);
      expect(diff.unreadableCommits.length).toBeGreaterThanOrEqual(3);
      expect(report(blobFirst)).toBe(report(diff));
    });
  });

  it('with its blob ids in a file past a few in memory, whole and damaged', async () => {
    // Blobs come back (reverts, merges, renames) after their ids went to the file; the damaged
    // clone's merges are listed again and their ids looked up after the reading.
    await withDamagedMirror(repo, damage.slice(0, 2), async (dir) => {
      for (const path of [repo.dir, dir]) {
        const diff = report(await scanRepository({ path, method: 'diff' }));
        for (const blobIdsInMemory of [1, 2, 7, 50]) {
          const spilling = await scanRepository({ path, method: 'blob-first', blobIdsInMemory });
          expect(report(spilling)).toBe(diff);
        }
      }
    });
  });

  it('reads each commit that names a missing object with a git of its own, not in a run of many', async () => {
    await withDamagedMirror(repo, damage, async (dir) => {
      const git = recordingGit(dir, '-p');
      const blobFirst = await scanRepository({ path: dir, method: 'blob-first', gitBinary: git.binary });
      const diff = await scanRepository({ path: dir, method: 'diff' });
      expect(report(blobFirst)).toBe(report(diff));
      const runs = git.runs();
      const failed = runs.filter(([code]) => code !== 0);
      // Each unreadable commit failed once, alone; the commits with findings went in runs of many.
      expect(failed.map(([, commits]) => commits)).toEqual(diff.unreadableCommits.map(() => 1));
      expect(runs.some(([code, commits]) => code === 0 && commits > 1)).toBe(true);
    });
  });

  it('diffs the merges whose missing blob git does not read (a file changed in place) together', async () => {
    const history = new TestRepo();
    try {
      const version = (name: string) => `version ${name}\n`.repeat(20);
      history.commitFiles({ 'f.txt': version('one'), 'h.txt': version('one'), 'g.txt': 'g\n' }, 'start');
      for (const file of ['f', 'h']) history.git('branch', `topic-${file}`);
      history.git('checkout', '-q', 'topic-f');
      history.commitFiles({ 'f.txt': version('two') }, 'topic changes f');
      history.git('checkout', '-q', 'topic-h');
      history.commitFiles({ 'h.txt': version('two') }, 'topic changes h');
      history.git('checkout', '-q', 'main');
      const merges: string[] = [];
      for (const file of ['f', 'h']) {
        history.commitFiles({ 'g.txt': `g changed before ${file}\n` }, `main changes g before ${file}`);
        // Takes the topic's version: against main, the file changed in place from the one that goes missing.
        history.git('merge', '-q', '--no-ff', '--no-edit', `topic-${file}`);
        merges.push(history.head());
      }
      history.commitFiles({ 'config.js': `const token = "${fakeCodehostToken()}";\n` }, 'a secret');
      const start = history.git('rev-list', '--max-parents=0', 'HEAD').trim();
      await withDamagedMirror(history, [`${start}:f.txt`, `${start}:h.txt`], async (dir) => {
        const git = recordingGit(dir, '-p');
        const blobFirst = await scanRepository({ path: dir, method: 'blob-first', gitBinary: git.binary });
        const diff = await scanRepository({ path: dir, method: 'diff' });
        expect(report(blobFirst)).toBe(report(diff));
        // The start and the topics' commits are unreadable, each read alone; the merges are not, and
        // git read them in one run (whole, in wide pack windows), the secret's commit in a run of its
        // own.
        expect(diff.unreadableCommits).toHaveLength(3);
        for (const merge of merges) expect(diff.unreadableCommits).not.toContain(merge);
        const runs = git.runs();
        expect(runs.filter(([code]) => code !== 0).map(([, commits, wide]) => [commits, wide])).toEqual([
          [1, 1],
          [1, 1],
          [1, 1],
        ]);
        expect(
          runs
            .filter(([code]) => code === 0)
            .map(([, commits, wide, limited]) => [commits, wide, limited])
            .sort(),
        ).toEqual([
          [1, 0, 0],
          [2, 1, 0],
        ]);
      });
    } finally {
      history.cleanup();
    }
  });

  it("limits a commit's diff to the paths it needs: the same renames, the same rename limit", async () => {
    const history = new TestRepo();
    try {
      const lines = (name: string, n: number) =>
        Array.from({ length: n }, (_, i) => `${name} line ${i}: nothing here`).join('\n');
      const secret = `const token = "${fakeCodehostToken()}";`;
      const files: Record<string, string> = {};
      for (let i = 0; i < 30; i++) files[`src/m${i}.js`] = `${lines(`m${i}`, 12)}\n`;
      const creds = `${lines('creds', 10)}\n${secret}\n${lines('more', 6)}\n`;
      const other = `${lines('other', 16)}\n`;
      history.commitFiles({ ...files, 'old/creds.js': creds, 'y.txt': other }, 'start');
      // Commits that each add a secret elsewhere, enough that the diff pass reads them in runs of
      // their own (whole: they leave out no file), apart from the start's.
      for (let i = 0; i < 70; i++)
        history.commitFiles({ [`f/n${i}.js`]: `const token = "${fakeCodehostToken()}";\n` });
      // Every file changed in place (nothing to diff for the gate) and a file renamed with a small
      // edit: git's diff shows the rename and its one new line, not the file's secret as added.
      for (let i = 0; i < 30; i++) history.write(`src/m${i}.js`, `${files[`src/m${i}.js`]}m${i} edited\n`);
      history.remove('old/creds.js').write('new/creds.js', `${creds}one more line\n`);
      history.commit('restyle and move');
      // Two renames with edits, past a rename limit of 1 (the repository's own setting, which the
      // diffs of both ways read), their names unlike (no pairing by name first): git gives up on
      // inexact renames, and shows the secret as added. Were either commit's diff limited to fewer
      // added and deleted paths, git would show another secret line added, at another place.
      for (let i = 0; i < 30; i++)
        history.write(`src/m${i}.js`, `${files[`src/m${i}.js`]}m${i} edited twice\n`);
      history.remove('new/creds.js').write('c/keys.js', `${creds}one more line\nand another\n`);
      history.remove('y.txt').write('z.txt', `${other}z edited\n`);
      history.commit('move again');
      history.git('config', 'diff.renameLimit', '1');
      const git = recordingGit(history.dir, '-p');
      const blobFirst = await scanRepository({
        path: history.dir,
        method: 'blob-first',
        gitBinary: git.binary,
      });
      const diff = await scanRepository({ path: history.dir, method: 'diff' });
      expect(report(blobFirst)).toBe(report(diff));
      console.log(
        'DBG',
        JSON.stringify(git.runs()),
        blobFirst.findings.map((f) => f.fingerprint),
        diff.findings.map((f) => f.fingerprint),
      );
      const paths = diff.findings.map((f) => f.path).filter((path) => !path.startsWith('f/'));
      expect(paths.sort()).toEqual(['c/keys.js', 'old/creds.js']);
      // The two commits that change every file were read in a run limited to their paths; the rest
      // (that change no file in place) whole.
      expect(
        git
          .runs()
          .map(([code, commits, wide, limited]) => [code, commits, wide, limited])
          .sort(),
      ).toEqual([
        [0, 2, 0, 1],
        [0, 35, 0, 0],
        [0, 36, 0, 0],
      ]);
    } finally {
      history.cleanup();
    }
  });

  it('lists again only the merges that descend from a commit bringing in a missing blob', async () => {
    const history = new TestRepo();
    try {
      const topic = (i: number) => mergeTopic(history, i);
      history.commitFiles({ 'README.md': 'start\n' }, 'start');
      for (let i = 0; i < 30; i++) topic(i);
      history.git('checkout', '-q', '-b', 'late', 'main');
      history.commitFiles({ 'late/lost.txt': 'a version that goes missing\n'.repeat(10) }, 'lost');
      history.commitFiles({ 'late/kept.txt': 'kept\n' }, 'kept');
      history.git('checkout', '-q', 'main');
      history.git('merge', '-q', '--no-ff', '--no-edit', 'late');
      for (let i = 30; i < 32; i++) topic(i);
      await withDamagedMirror(history, ['late~1:late/lost.txt'], async (dir) => {
        const listing = vi.mocked(listTreeChanges);
        listing.mockClear();
        const blobFirst = await scanRepository({ path: dir, method: 'blob-first' });
        const diff = await scanRepository({ path: dir, method: 'diff' });
        expect(report(blobFirst)).toBe(report(diff));
        expect(diff.unreadableCommits.length).toBeGreaterThanOrEqual(1);
        const perParent = listing.mock.calls.filter(([, , , , mode]) => mode === 'per-parent');
        expect(perParent.length).toBeGreaterThan(0);
        const listed = perParent.reduce((sum, [, commits]) => sum + commits.length, 0);
        // The merge of `late` and the two after it, not the 30 before.
        expect(listed).toBeLessThanOrEqual(3);
      });
    } finally {
      history.cleanup();
    }
  });

  it('in a range whose missing blobs older commits also brought in, gives the diff path report', async () => {
    const history = new TestRepo();
    try {
      const merge = (branch: string) => history.git('merge', '-q', '--no-ff', '--no-edit', branch);
      const topic = (i: number) => mergeTopic(history, i);
      history.commitFiles({ 'README.md': 'start\n' }, 'start');
      for (let i = 0; i < 4; i++) topic(i);
      const beforeEarly = history.git('rev-parse', 'main');
      history.git('checkout', '-q', '-b', 'early', 'main');
      history.commitFiles({ 'early/lost.txt': 'an early version that goes missing\n'.repeat(10) }, 'early');
      history.git('checkout', '-q', 'main');
      merge('early');
      const rangeStart = history.git('rev-parse', 'main');
      // A branch from before `early`, merged after it: that merge's diff against it adds early/lost.txt.
      history.git('checkout', '-q', '-b', 'stale', beforeEarly);
      history.commitFiles({ 'stale.txt': 'stale\n' }, 'stale');
      history.git('checkout', '-q', 'main');
      for (let i = 4; i < 6; i++) topic(i);
      merge('stale');
      // In the range, a branch never merged brings in a second missing blob.
      history.git('checkout', '-q', '-b', 'late', 'main');
      history.commitFiles({ 'late/lost.txt': 'a late version that goes missing\n'.repeat(10) }, 'late');
      history.git('checkout', '-q', 'main');
      await withDamagedMirror(history, ['early:early/lost.txt', 'late:late/lost.txt'], async (dir) => {
        const commits = { tips: ['main', 'late'], exclude: [rangeStart] };
        const blobFirst = await scanRepository({ path: dir, method: 'blob-first', commits });
        const diff = await scanRepository({ path: dir, method: 'diff', commits });
        expect(diff.unreadableCommits).toContain(history.git('rev-parse', 'late'));
        expect(report(blobFirst)).toBe(report(diff));
      });
    } finally {
      history.cleanup();
    }
  });

  it.each([
    [0, 'the paths themselves'],
    [20, 'their first components'],
  ])('on a clone missing only blobs, one of them copied to a second path a merge brings in (%i more missing: listed again at %s)', async (more) => {
    // Every tree is there, so the merges are listed again only at the paths where a missing blob
    // was ever listed: the copy's path must be among them, though the blob was first seen elsewhere.
    // With more than 16 such paths, at their first components (blob-first.ts, limitingPaths).
    const copied = new TestRepo();
    try {
      const lost = 'a version that goes missing\n'.repeat(20);
      const extra = Object.fromEntries(
        Array.from({ length: more }, (_, i) => [`more/deep/m${i}.txt`, `missing too ${i}\n`.repeat(5)]),
      );
      copied.commitFiles(
        { 'a.txt': lost, 'c.txt': 'one\n', 'd.txt': 'gone on the side\n', ...extra },
        'first',
      );
      copied.git('checkout', '-q', '-b', 'side');
      // Against main, the merge adds the copy and deletes d.txt: git's rename detection reads both.
      copied.remove('d.txt');
      copied.commitFiles(
        { 'copy/b.txt': lost, 'side.txt': `const gh = "${fakeCodehostToken(71)}";\n` },
        'copy',
      );
      copied.git('checkout', '-q', 'main');
      copied.commitFiles({ 'c.txt': 'two\n' }, 'main moves on');
      // Clean merges before the one that matters: with two listings at once (parallelism), that one
      // is in the second part.
      for (let i = 0; i < (more > 0 ? 3 : 0); i++) {
        copied.git('checkout', '-q', '-b', `topic${i}`, 'main');
        copied.commitFiles({ [`topic${i}.txt`]: `${i}\n` }, `topic ${i}`);
        copied.git('checkout', '-q', 'main');
        copied.git('merge', '-q', '--no-ff', '--no-edit', `topic${i}`);
      }
      copied.git('merge', '-q', '--no-edit', 'side');
      copied.commitFiles({ 'c.txt': `const gh = "${fakeCodehostToken(72)}";\n` }, 'after the merge');
      const lostBlobs = ['HEAD:copy/b.txt', ...Object.keys(extra).map((path) => `HEAD:${path}`)];
      await withDamagedMirror(copied, lostBlobs, async (dir) => {
        const { blobFirst, diff } = await bothWays(dir);
        const merge = copied.git('rev-parse', 'HEAD^');
        expect(diff.unreadableCommits).toContain(merge);
        expect(report(blobFirst)).toBe(report(diff));
      });
    } finally {
      copied.cleanup();
    }
  });

  it('on a history whose blob versions are many times the memory the gate holds them in', async () => {
    // 90 versions of a 450 KB file (40 MB, well over the gate's 24 MB ring), edited at both ends
    // and in the middle, on two branches merged back; a credential comes and goes, and one is
    // moved within the file (git may call the moved line added or not: the diff path decides).
    const big = new TestRepo();
    try {
      const lines = Array.from({ length: 12_000 }, (_, i) => `  const row${i} = compute(${i}, 'value');`);
      const write = (i: number) => big.commitFiles({ 'data/big.js': `${lines.join('\n')}\n` }, `v${i}`);
      for (let i = 0; i < 40; i++) {
        lines[i % 50] = `  const top${i} = ${i};`;
        lines[11_990 - (i % 50)] = `  const bottom${i} = ${i};`;
        if (i === 10) lines[6000] = `  const gh = "${fakeCodehostToken(60)}";`;
        if (i === 20) lines.splice(9000, 0, lines.splice(6000, 1)[0]!);
        if (i === 30) lines[9000] = '  const gh = process.env.GH;';
        write(i);
      }
      big.git('checkout', '-q', '-b', 'side', 'HEAD~15');
      for (let i = 40; i < 90; i++) {
        lines[3000 + i] = `  const side${i} = ${i};`;
        if (i === 70) lines[3500] = `  const gh2 = "${fakeCodehostToken(61)}";`;
        write(i);
      }
      big.git('checkout', '-q', 'main');
      big.git('merge', '-q', '-X', 'theirs', '--no-edit', 'side');
      const { blobFirst, diff } = await bothWays(big.dir);
      expect(report(blobFirst)).toBe(report(diff));
      expect(diff.findings.length).toBeGreaterThanOrEqual(2);
    } finally {
      big.cleanup();
    }
  });
});

describe('an exception in a callback the scan runs while git is reading', () => {
  it('rejects the scan with it and leaves no git running, reading blobs or diffs', async () => {
    for (const method of ['blob-first', 'diff'] as const) {
      const failure = new Error('progress failed');
      // The last commit done is reported from git's diff pass (blob-first sends the commits with
      // findings there), inside the handler of git's output or of its exit.
      const scan = scanRepository({
        path: repo.dir,
        method,
        onProgress: (done, total) => {
          if (done === total) throw failure;
        },
      });
      await expect(scan).rejects.toBe(failure);
      expect(liveChildren().filter((name) => name === 'git')).toEqual([]);
    }
  });
});
