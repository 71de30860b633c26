import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteObjects } from '../../test/helpers/edge-history.js';
import { fakeCodehostToken, fakePaymentKey } from '../../test/helpers/fake-secrets.js';
import { TestRepo } from '../../test/helpers/git-repo.js';
import { detectSecrets } from './detect/detect-line.js';
import { PREFILTER } from './detect/prefilter.js';
import { fingerprintOf } from './fingerprint.js';
import { KnownFindings } from './known-findings.js';
import type { FindingPlace } from './scan-cache.js';

let repo: TestRepo;
let commit: string;
beforeAll(() => {
  repo = new TestRepo();
  repo.commitFiles({ 'README.md': 'start\n' });
  commit = repo.commitFiles({
    'a.js': `export const gh = "${fakeCodehostToken(81)}";\n`,
    'b.js': `export const stripe = "${fakePaymentKey(82)}";\n`,
  });
});
afterAll(() => repo.cleanup());

/** Reads `known` again as scan.ts does, and returns the fingerprints kept. */
async function reread(known: KnownFindings, dir = repo.dir): Promise<string[]> {
  const found = new Set<string>();
  const sink = {
    onCandidateLine(info: { sha: string }, path: string, line: number, text: string) {
      for (const match of detectSecrets(text)) {
        const fingerprint = fingerprintOf(match.ruleId, info.sha, path, line);
        if (known.accepts(info.sha, fingerprint)) found.add(fingerprint);
      }
    },
  };
  const reading = { git: { binary: 'git', repo: dir }, sink, prefilter: PREFILTER, parallelism: 2 };
  expect(
    await known.read(
      reading,
      (f) => found.has(f),
      () => {},
    ),
  ).toEqual([]);
  return [...found].sort();
}

describe('reading the commits a cache records findings in', () => {
  it('reads only the recorded paths and keeps only the recorded findings', async () => {
    const a: FindingPlace = ['codehost-token', 'a.js', 1];
    expect(await reread(new KnownFindings(new Map([[commit, [a]]])))).toEqual([
      fingerprintOf('codehost-token', commit, 'a.js', 1),
    ]);
  });

  it('reads a commit whole, with nothing filtered, when a recorded finding is not found again', async () => {
    // The cache says a.js and a file the commit does not have: the limited read misses the second,
    // so the commit is read again whole, and all it holds is kept.
    const places: FindingPlace[] = [
      ['codehost-token', 'a.js', 1],
      ['codehost-token', 'gone.js', 7],
    ];
    expect(await reread(new KnownFindings(new Map([[commit, places]])))).toEqual(
      [
        fingerprintOf('codehost-token', commit, 'a.js', 1),
        fingerprintOf('payment-live-key', commit, 'b.js', 1),
      ].sort(),
    );
  });

  it('reads each recorded line from the commit’s file, with no diff (the version before may be gone)', async () => {
    const edit = repo.commitFiles({
      'a.js': `// a comment\nexport const gh = "${fakeCodehostToken(81)}";\n`,
    });
    const dir = mkdtempSync(join(tmpdir(), 'svc-known-'));
    try {
      execFileSync('git', ['clone', '-q', '--no-local', '--mirror', repo.dir, dir]);
      // A diff of `edit` needs the version of a.js before it; that blob is gone.
      deleteObjects(dir, [repo.git('rev-parse', `${edit}~1:a.js`).trim()]);
      const known = new KnownFindings(new Map([[edit, [['codehost-token', 'a.js', 2] as FindingPlace]]]));
      expect(await reread(known, dir)).toEqual([fingerprintOf('codehost-token', edit, 'a.js', 2)]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
