import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEdgeHistory, deleteObjects } from '../../../test/helpers/edge-history.js';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { renderReport } from '../report/index.js';
import { scanRepository } from '../scan.js';
import type { ScanResult } from '../types.js';

/** The JSON report (it carries no times, so two scans of one history must give the same bytes). */
const report = (r: ScanResult) => renderReport(r, 'json', { toolVersion: 'test' });

async function bothWays(path: string): Promise<{ blobFirst: ScanResult; diff: ScanResult }> {
  const blobFirst = await scanRepository({ path, method: 'blob-first' });
  const diff = await scanRepository({ path, method: 'diff' });
  return { blobFirst, diff };
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
    expect(diff.findings.some((f) => merges.has(f.commit))).toBe(true);
  });

  it('on a clone with missing blobs and a missing tree', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-damaged-'));
    try {
      execFileSync('git', ['clone', '-q', '--no-local', '--mirror', repo.dir, dir]);
      const id = (rev: string) =>
        execFileSync('git', ['-C', dir, 'rev-parse', rev], { encoding: 'utf8' }).trim();
      // A version of a long file (later versions are diffed against it), a blob a merge brings in
      // from its branch, and a whole tree.
      deleteObjects(dir, [id('main~14:src/long.js'), id('side:side/feature.js'), id('main~8^{tree}')]);
      const { blobFirst, diff } = await bothWays(dir);
      expect(diff.unreadableCommits.length).toBeGreaterThanOrEqual(3);
      expect(report(blobFirst)).toBe(report(diff));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
