import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSyntheticHistory, type SyntheticHistory } from '../../../bench/synthetic-history.js';
import { renderReport } from '../report/index.js';
import { scanRepository } from '../scan.js';

// A history long enough to be split across git processes (more than 1024 commits a process).
let dir: string;
let repo: string;
let built: SyntheticHistory;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-history-'));
  repo = join(dir, 'repo');
  built = await buildSyntheticHistory(repo, {
    commits: 2600,
    bytesPerCommit: 400,
    secretEvery: 40,
    mergeEvery: 30,
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const json = (r: Awaited<ReturnType<typeof scanRepository>>) =>
  renderReport(r, 'json', { toolVersion: 'test' });
const fingerprints = (r: Awaited<ReturnType<typeof scanRepository>>) =>
  r.findings.map((f) => f.fingerprint).sort();

describe('a history split across git processes', () => {
  it('finds the same findings with one process and with several, reading blobs or diffs', async () => {
    const one = await scanRepository({ path: repo, parallelism: 1 });
    const three = await scanRepository({ path: repo, parallelism: 3 });
    const byDiff = await scanRepository({ path: repo, parallelism: 2, method: 'diff' });
    expect(json(one)).toBe(json(byDiff));
    expect(one.commitsScanned).toBe(built.commits);
    expect(three.commitsScanned).toBe(built.commits);
    expect(fingerprints(three)).toEqual(fingerprints(one));
    // Every planted credential is found; a rename with heavy edits may legitimately re-add a line.
    expect(one.findings.length).toBeGreaterThanOrEqual(built.secretCommits);
    expect(one.findings.length).toBeLessThanOrEqual(built.secretCommits + 3);
  });

  it('reports progress up to the total', async () => {
    const seen: [number, number][] = [];
    await scanRepository({ path: repo, parallelism: 2, onProgress: (d, t) => seen.push([d, t]) });
    expect(seen.at(-1)).toEqual([built.commits, built.commits]);
    expect(seen.every(([d, t], i) => d <= t && (i === 0 || d >= seen[i - 1]![0]))).toBe(true);
  });

  it('goes on past unreadable commits in every part', async () => {
    const damaged = join(dir, 'damaged');
    execFileSync('git', ['clone', '-q', '--no-local', repo, damaged]);
    // Unpack so single objects can be removed, then drop the blob of one old and one recent commit.
    execFileSync('sh', [
      '-c',
      `cd ${damaged} && mv .git/objects/pack/*.pack ../packed.pack && rm .git/objects/pack/* && git unpack-objects -q < ../packed.pack && rm ../packed.pack`,
    ]);
    const commits = execFileSync('git', ['-C', damaged, 'rev-list', '--no-merges', '--all'], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n');
    const victims = [commits[100]!, commits[2000]!];
    for (const commit of victims) {
      const changed = execFileSync(
        'git',
        ['-C', damaged, 'diff-tree', '--no-commit-id', '-r', '--root', commit],
        { encoding: 'utf8' },
      );
      const blob = changed.trim().split('\n')[0]!.split(' ')[3]!;
      rmSync(join(damaged, '.git', 'objects', blob.slice(0, 2), blob.slice(2)), { force: true });
    }
    const result = await scanRepository({ path: damaged, parallelism: 2 });
    const byDiff = await scanRepository({ path: damaged, parallelism: 2, method: 'diff' });
    expect(json(result)).toBe(json(byDiff));
    expect(result.incomplete).toBe(true);
    for (const v of victims) expect(result.unreadableCommits).toContain(v);
    // Later commits that still need a lost blob (a diff against it) are unreadable too; the rest is scanned.
    expect(result.commitsScanned + result.unreadableCommits.length).toBe(built.commits);
    expect(result.commitsScanned).toBeGreaterThan(built.commits - 50);
  });
});
