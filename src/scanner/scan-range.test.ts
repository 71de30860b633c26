import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeCloudKeyId, fakeCodehostToken, fakePaymentKey } from '../../test/helpers/fake-secrets.js';
import { TestRepo } from '../../test/helpers/git-repo.js';
import { scanRepository } from './index.js';
import type { Finding } from './types.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});
function repo(): TestRepo {
  const r = new TestRepo();
  cleanups.push(() => r.cleanup());
  return r;
}
const where = (f: Finding) => `${f.path}:${f.line} @${f.commit?.slice(0, 7)}`;

describe('scanning a range of commits (tips, not reachable from exclude)', () => {
  it('reads only the commits the range names, with the same findings a full scan has for them', async () => {
    const r = repo();
    r.commitFiles({ 'old.env': `KEY=${fakeCloudKeyId(1)}\n` });
    const before = r.commitFiles({ 'app.js': 'const a = 1;\n' });
    const first = r.commitFiles({ 'app.js': `const a = 1;\nconst t = "${fakeCodehostToken(2)}";\n` });
    const second = r.commitFiles({ 'pay.env': `STRIPE=${fakePaymentKey(3)}\n` });

    const ranged = await scanRepository({ path: r.dir, commits: { tips: [second], exclude: [before] } });
    expect(ranged.commitsScanned).toBe(2);
    expect(ranged.findings.map(where)).toEqual([
      `app.js:2 @${first.slice(0, 7)}`,
      `pay.env:1 @${second.slice(0, 7)}`,
    ]);
    expect(ranged.shallow).toBe(false);

    const full = await scanRepository({ path: r.dir });
    const inRange = full.findings.filter((f) => f.commit === first || f.commit === second);
    expect(ranged.findings).toEqual(inRange.map((f) => ({ ...f })));
    expect(full.findings).toHaveLength(3);
  });

  it('excludes what any excluded tip reaches, as a branch merged from another does', async () => {
    const r = repo();
    r.commitFiles({ 'a.txt': 'a\n' });
    r.git('checkout', '-q', '-b', 'feature');
    const feature = r.commitFiles({ 'f.env': `KEY=${fakeCloudKeyId(4)}\n` });
    r.git('checkout', '-q', 'main');
    const mainTip = r.commitFiles({ 'b.txt': 'b\n' });
    r.git('merge', '-q', '--no-edit', 'feature');
    const merge = r.head();
    const ranged = await scanRepository({
      path: r.dir,
      commits: { tips: [merge], exclude: [mainTip, feature] },
    });
    expect(ranged.commitsScanned).toBe(1);
    expect(ranged.findings).toEqual([]);
  });

  it('is complete in a shallow fetch whose range commits all have their parents, and says so otherwise', async () => {
    const origin = repo();
    for (let i = 0; i < 5; i++) origin.commitFiles({ [`f${i}.txt`]: `${i}\n` });
    const before = origin.head();
    const after = origin.commitFiles({ 'new.env': `KEY=${fakeCloudKeyId(5)}\n` });
    const dir = mkdtempSync(join(tmpdir(), 'svc-shallow-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'pipe' });
    git('init', '-q', '--bare');
    git('fetch', '-q', '--depth=2', `file://${origin.dir}`, `${after}:refs/heads/main`);

    const ranged = await scanRepository({ path: dir, commits: { tips: [after], exclude: [before] } });
    expect(ranged.shallow).toBe(false);
    expect(ranged.findings.map(where)).toEqual([`new.env:1 @${after.slice(0, 7)}`]);

    // Without its exclusion the range reaches the shallow boundary: that commit has no parents here.
    const cut = await scanRepository({ path: dir, commits: { tips: [after], exclude: [] } });
    expect(cut.shallow).toBe(true);
  });

  it('refuses an unknown commit and a cache file alongside a range, in one line', async () => {
    const r = repo();
    r.commitFiles({ 'a.txt': 'a\n' });
    await expect(
      scanRepository({
        path: r.dir,
        commits: { tips: ['0123456789abcdef0123456789abcdef01234567'], exclude: [] },
      }),
    ).rejects.toThrow(/cannot list the commits to scan/);
    await expect(
      scanRepository({ path: r.dir, commits: { tips: [r.head()], exclude: [] }, cache: join(r.dir, 'c') }),
    ).rejects.toThrow(/cannot be combined/);
  });
});
