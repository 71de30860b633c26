import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  fakeChatToken,
  fakeCloudKeyId,
  fakeCodehostToken,
  fakeGenericValue,
  fakePaymentKey,
  fakeWebApiKey,
  PRIVATE_KEY_BLOCK,
} from '../../test/helpers/fake-secrets.js';
import { TestRepo } from '../../test/helpers/git-repo.js';
import { type ScanOptions, scanRepository, secretOf } from './index.js';
import type { Finding, ScanResult } from './types.js';

const repos: TestRepo[] = [];
function repo(options?: ConstructorParameters<typeof TestRepo>[0]): TestRepo {
  const r = new TestRepo(options);
  repos.push(r);
  return r;
}
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

async function scan(r: TestRepo, options: Partial<ScanOptions> = {}): Promise<ScanResult> {
  return scanRepository({ path: r.dir, ...options });
}
const where = (f: Finding) => `${f.ruleId} ${f.path}:${f.line} @${f.commit?.slice(0, 7)}`;
const KEY = fakeCloudKeyId();

describe('history: every added line of every commit on every ref', () => {
  it('finds a secret that a later commit deleted, attributed to the commit that added it', async () => {
    const r = repo();
    const added = r.commitFiles({ 'config/deploy.env': `REGION=eu\nAWS_KEY=${KEY}\n` });
    r.remove('config/deploy.env');
    r.commit('remove the key');
    const result = await scan(r);
    expect(result.findings.map(where)).toEqual([
      `cloud-access-key-id config/deploy.env:2 @${added.slice(0, 7)}`,
    ]);
    expect(result.commitsScanned).toBe(2);
    expect(result.passed).toBe(false);
  });

  it('scans unmerged branches, tags, orphan branches and remote-tracking refs', async () => {
    const r = repo();
    r.commitFiles({ 'app.js': 'console.log(1)\n' });
    r.git('checkout', '-q', '-b', 'feature');
    const onBranch = r.commitFiles({ 'a.js': `k = "${fakeCodehostToken(11)}"\n` });
    r.git('checkout', '-q', '-b', 'to-tag');
    const onTag = r.commitFiles({ 'b.js': `k = "${fakeCodehostToken(12)}"\n` });
    r.git('tag', 'v1');
    r.git('checkout', '-q', 'main');
    r.git('branch', '-q', '-D', 'to-tag');
    r.git('checkout', '-q', '--orphan', 'gh-pages');
    r.git('rm', '-rq', '--cached', '.');
    const onOrphan = r.commitFiles({ 'c.js': `k = "${fakeCodehostToken(13)}"\n` });
    r.git('checkout', '-q', '-f', 'main');
    r.git('update-ref', 'refs/remotes/origin/old', onOrphan);
    r.git('branch', '-q', '-D', 'gh-pages');
    const result = await scan(r);
    const commits = result.findings.map((f) => f.commit).sort();
    expect(commits).toEqual([onBranch, onTag, onOrphan].sort());
    expect(result.commitsScanned).toBe(4);
  });

  it('reports a commit reached from several refs once', async () => {
    const r = repo();
    r.commitFiles({ 'x.env': `KEY=${KEY}\n` });
    r.git('branch', 'copy');
    r.git('tag', 'v0');
    const result = await scan(r);
    expect(result.findings).toHaveLength(1);
    expect(result.commitsScanned).toBe(1);
  });
});

describe('merges: the combined diff', () => {
  it('attributes an evil-merge line to the merge, and does not re-report lines from the merged branch', async () => {
    const r = repo();
    r.commitFiles({ 'f.py': 'a = 1\nb = 2\nc = 3\n' });
    r.git('checkout', '-q', '-b', 'side');
    const side = r.commitFiles({
      'f.py': 'a = 1\nb = 20\nc = 3\n',
      's.py': `TOKEN = "${fakePaymentKey(1)}"\n`,
    });
    r.git('checkout', '-q', 'main');
    r.commitFiles({ 'f.py': 'a = 1\nb = 200\nc = 3\n' });
    r.git('merge', '-q', 'side', '-m', 'merge', '--no-ff', '--no-commit', '-X', 'ours');
    r.write('f.py', `a = 1\nb = 2000\nc = 3\nkey = "${fakePaymentKey(2)}"\n`);
    const merge = r.commit('merge side');
    const result = await scan(r);
    expect(result.findings.map(where).sort()).toEqual(
      [
        `payment-live-key f.py:4 @${merge.slice(0, 7)}`,
        `payment-live-key s.py:1 @${side.slice(0, 7)}`,
      ].sort(),
    );
  });

  it('finds a secret in a conflict resolution with true line numbers', async () => {
    const r = repo();
    r.commitFiles({ 'c.txt': 'one\ntwo\nthree\n' });
    r.git('checkout', '-q', '-b', 'side');
    r.commitFiles({ 'c.txt': 'one\nside\nthree\n' });
    r.git('checkout', '-q', 'main');
    r.commitFiles({ 'c.txt': 'one\nmain\nthree\n' });
    try {
      r.git('merge', '-q', 'side');
    } catch {
      // the conflict is the point
    }
    r.write('c.txt', `one\nresolved ${fakeChatToken(5)}\nthree\n`);
    const merge = r.commit('resolve');
    const result = await scan(r);
    expect(result.findings.map(where)).toEqual([`chat-token c.txt:2 @${merge.slice(0, 7)}`]);
  });
});

describe('renames, paths and line numbers', () => {
  it('does not re-report a moved file, but finds what the move added', async () => {
    const r = repo();
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}`);
    lines[9] = `KEY=${KEY}`;
    const first = r.commitFiles({ 'old/name.env': `${lines.join('\n')}\n` });
    r.remove('old/name.env');
    lines.splice(20, 0, `web = '${fakeWebApiKey(3)}'`);
    const moved = r.commitFiles({ 'new/name.env': `${lines.join('\n')}\n` });
    const result = await scan(r);
    expect(result.findings.map(where).sort()).toEqual(
      [
        `cloud-access-key-id old/name.env:10 @${first.slice(0, 7)}`,
        `webapi-key new/name.env:21 @${moved.slice(0, 7)}`,
      ].sort(),
    );
  });

  it('keeps unicode, spaces, quotes and backslashes in paths as committed', async () => {
    const r = repo();
    const paths = ['dir with space/ünïcødé file.env', 'quo"te\\back.env', 'tab\there.env', 'naïve/日本.env'];
    for (const [i, p] of paths.entries()) r.write(p, `KEY=${fakeCloudKeyId(100 + i)}\n`);
    r.commit('odd paths');
    const result = await scan(r);
    expect(result.findings.map((f) => f.path).sort()).toEqual([...paths].sort());
    expect(result.findings.every((f) => f.fingerprint.endsWith(`:${f.path}:1`))).toBe(true);
  });

  it('gives the 1-based line number in the file as of that commit, across several hunks', async () => {
    const r = repo();
    const body = Array.from({ length: 100 }, (_, i) => `x${i} = ${i}`);
    r.commitFiles({ 'app.py': `${body.join('\n')}\n` });
    body[4] = `token = "${fakeGenericValue(1)}"`;
    body.splice(60, 0, 'inserted = 1', `aws = "${KEY}"`);
    const second = r.commitFiles({ 'app.py': `${body.join('\n')}\n` });
    const result = await scan(r);
    expect(result.findings.map(where).sort()).toEqual(
      [
        `generic-secret app.py:5 @${second.slice(0, 7)}`,
        `cloud-access-key-id app.py:62 @${second.slice(0, 7)}`,
      ].sort(),
    );
  });

  it('strips CRLF before matching', async () => {
    const r = repo();
    r.commitFiles({ 'win.cfg': `a=1\r\npassword = "${fakeGenericValue(2)}"\r\nkey=${KEY}\r\n` });
    const result = await scan(r);
    expect(result.findings.map((f) => `${f.ruleId}:${f.line}`).sort()).toEqual([
      'cloud-access-key-id:3',
      'generic-secret:2',
    ]);
    const generic = result.findings.find((f) => f.ruleId === 'generic-secret')!;
    expect(secretOf(generic)).toBe(fakeGenericValue(2));
  });

  it('skips binary files', async () => {
    const r = repo();
    r.commitFiles({ 'blob.bin': Buffer.concat([Buffer.from([0, 1, 2, 0]), Buffer.from(`\nKEY=${KEY}\n`)]) });
    const result = await scan(r);
    expect(result.findings).toEqual([]);
    expect(result.commitsScanned).toBe(1);
  });

  it('scans a minified multi-megabyte line to its end', async () => {
    const r = repo();
    const filler = 'var a=function(b){return b*2};'.repeat(100_000); // ~3 MB
    r.commitFiles({ 'dist/app.min.js': `${filler}k="${KEY}";${filler}s="${fakePaymentKey(9)}";\n` });
    const result = await scan(r);
    expect(result.findings.map((f) => `${f.ruleId}:${f.line}`).sort()).toEqual([
      'cloud-access-key-id:1',
      'payment-live-key:1',
    ]);
  });

  it('scans a huge added file to its last line', async () => {
    const r = repo();
    const lines = Array.from({ length: 1_000_000 }, (_, i) => `row ${i} some ordinary data here`);
    lines.push(`final = "${KEY}"`);
    r.commitFiles({ 'data/huge.csv': `${lines.join('\n')}\n` });
    const result = await scan(r);
    expect(result.findings.map((f) => `${f.path}:${f.line}`)).toEqual(['data/huge.csv:1000001']);
  });

  it('reports one finding per fingerprint', async () => {
    const r = repo();
    r.commitFiles({ 'twice.env': `A=${KEY} B=${fakeCloudKeyId(2)}\n` });
    const result = await scan(r);
    expect(result.findings).toHaveLength(1);
  });
});

describe('rules in context', () => {
  it('finds each rule, masks it, and keeps the secret only in memory', async () => {
    const r = repo();
    const c = r.commitFiles({
      'src/settings.py': [
        `AWS = "${KEY}"`,
        `GH = "${fakeCodehostToken()}"`,
        `SLACK = "${fakeChatToken()}"`,
        `STRIPE = "${fakePaymentKey()}"`,
        `MAPS = "${fakeWebApiKey()}"`,
        `db_password = "${fakeGenericValue()}"`,
        '',
      ].join('\n'),
      'deploy/id_rsa': `${PRIVATE_KEY_BLOCK}\n`,
    });
    const result = await scan(r);
    const byRule = Object.fromEntries(result.findings.map((f) => [f.ruleId, f]));
    expect(Object.keys(byRule).sort()).toEqual(
      [
        'chat-token',
        'cloud-access-key-id',
        'codehost-token',
        'generic-secret',
        'payment-live-key',
        'private-key',
        'webapi-key',
      ].sort(),
    );
    expect(byRule['private-key']!.maskedValue).toBe('RSA');
    expect(byRule['cloud-access-key-id']!.maskedValue).toBe('AKIA****************');
    expect(byRule['cloud-access-key-id']!.fingerprint).toBe(
      `cloud-access-key-id:${c.slice(0, 12)}:src/settings.py:1`,
    );
    expect(byRule['codehost-token']!.author).toBe('Ada Dev');
    expect(byRule['codehost-token']!.date).toMatch(/^2024-01-15T09:01:00[+-]00:00$/);
    const serialized = JSON.stringify(result);
    for (const f of result.findings) {
      const secret = secretOf(f)!;
      expect(secret.length).toBeGreaterThan(4);
      if (f.ruleId !== 'private-key') expect(serialized).not.toContain(secret);
    }
  });

  it('skips placeholders and low-entropy values', async () => {
    const r = repo();
    r.commitFiles({
      'cfg.env': [
        'AWS=AKIAIOSFODNN7EXAMPLE',
        `TOKEN="ghp_${'x'.repeat(28)}REDACTED"`,
        'password = "aaaaaaaaaaaaaaaaaaaa"',
        'secret = "changeme-changeme-changeme"',
        '',
      ].join('\n'),
    });
    expect((await scan(r)).findings).toEqual([]);
  });
});

describe('location classes and the pass/fail rule', () => {
  it('classifies paths and fails only for unignored code findings', async () => {
    const r = repo();
    const files: Record<string, string> = {
      'tests/test_api.py': 'test',
      'src/foo_test.go': 'test',
      '.env.example': 'example',
      'examples/app.js': 'example',
      'README.md': 'docs',
      'docs/setup.txt': 'docs',
      'contest.py': 'code',
      'config/deploy.env': 'code',
    };
    r.commitFiles(
      Object.fromEntries(Object.keys(files).map((p, i) => [p, `K = "${fakeCloudKeyId(300 + i)}"\n`])),
    );
    const result = await scan(r);
    expect(Object.fromEntries(result.findings.map((f) => [f.path, f.location]))).toEqual(files);
    expect(result.summary.failing).toBe(2);
    expect(result.summary.byLocation).toEqual({ code: 2, test: 2, example: 2, docs: 2 });
    expect(result.passed).toBe(false);
  });

  it('passes when secrets are only outside code', async () => {
    const r = repo();
    r.commitFiles({ 'test/fixtures/creds.json': `{"key": "${KEY}"}\n`, 'docs/a.md': `${KEY}\n` });
    const result = await scan(r);
    expect(result.summary.total).toBe(2);
    expect(result.passed).toBe(true);
  });
});

describe('.svcignore', () => {
  it('applies the default branch list: listed findings are kept, marked, and do not fail', async () => {
    const r = repo();
    const c = r.commitFiles({ 'app.env': `KEY=${KEY}\n` });
    r.commitFiles({ '.svcignore': `# accepted\n\n  cloud-access-key-id:${c.slice(0, 12)}:app.env:1  \n` });
    const result = await scan(r);
    expect(result.findings).toHaveLength(1);
    expect(result.findings[0]!.ignored).toBe(true);
    expect(result.summary.ignored).toBe(1);
    expect(result.passed).toBe(true);
    expect(result.defaultBranch).toBe('main');
  });

  it('ignores a .svcignore that exists only on another branch, unless that branch is named', async () => {
    const r = repo();
    const c = r.commitFiles({ 'app.env': `KEY=${KEY}\n` });
    r.git('checkout', '-q', '-b', 'sneaky');
    r.commitFiles({ '.svcignore': `cloud-access-key-id:${c.slice(0, 12)}:app.env:1\n` });
    r.git('checkout', '-q', 'main');
    const result = await scan(r);
    expect(result.findings[0]!.ignored).toBe(false);
    expect(result.passed).toBe(false);
    const named = await scan(r, { defaultBranch: 'sneaky' });
    expect(named.passed).toBe(true);
    expect(named.defaultBranch).toBe('sneaky');
  });

  it('reads .svcignore from a branch whose name starts with "-", as named', async () => {
    const r = repo();
    const c = r.commitFiles({ 'app.env': `KEY=${KEY}\n` });
    r.git('checkout', '-q', '-b', 'ignore-list');
    r.commitFiles({ '.svcignore': `cloud-access-key-id:${c.slice(0, 12)}:app.env:1\n` });
    r.git('update-ref', 'refs/heads/-x', 'HEAD');
    r.git('checkout', '-q', 'main');
    r.git('branch', '-q', '-D', 'ignore-list');
    const named = await scan(r, { defaultBranch: '-x' });
    expect(named.defaultBranch).toBe('-x');
    expect(named.passed).toBe(true);
    expect(named.findings[0]!.ignored).toBe(true);
  });

  it('prefers the remote HEAD over the checked-out branch', async () => {
    const upstream = repo();
    const c = upstream.commitFiles({ 'app.env': `KEY=${KEY}\n` });
    upstream.commitFiles({ '.svcignore': `cloud-access-key-id:${c.slice(0, 12)}:app.env:1\n` });
    const clone = repo();
    rmSync(clone.dir, { recursive: true });
    upstream.git('clone', '-q', upstream.dir, clone.dir);
    clone.git('checkout', '-q', '-b', 'work');
    clone.git('rm', '-q', '.svcignore');
    clone.commit('drop ignore');
    const result = await scan(clone);
    expect(result.defaultBranch).toBe('main');
    expect(result.passed).toBe(true);
  });
});

describe('repositories out of the ordinary', () => {
  it('treats an empty repository as a clean pass', async () => {
    const r = repo();
    const result = await scan(r);
    expect(result).toMatchObject({ commitsScanned: 0, passed: true, findings: [], defaultBranch: 'main' });
  });

  it('scans a bare repository', async () => {
    const src = repo();
    src.commitFiles({ 'a.env': `KEY=${KEY}\n` });
    const bare = repo();
    rmSync(bare.dir, { recursive: true });
    src.git('clone', '-q', '--bare', src.dir, bare.dir);
    const result = await scan(bare);
    expect(result.findings).toHaveLength(1);
  });

  it('warns that a shallow clone is incomplete and scans what it has', async () => {
    const src = repo();
    src.commitFiles({ 'a.env': `KEY=${KEY}\n` });
    src.commitFiles({ 'b.env': `KEY=${fakeCloudKeyId(9)}\n` });
    const shallow = repo();
    rmSync(shallow.dir, { recursive: true });
    src.git('clone', '-q', '--depth', '1', `file://${src.dir}`, shallow.dir);
    const warnings: string[] = [];
    const result = await scan(shallow, { onWarning: (w) => warnings.push(w) });
    expect(result.shallow).toBe(true);
    expect(warnings.join('\n')).toMatch(/shallow clone/);
    expect(result.commitsScanned).toBe(1);
  });

  it('scans around missing objects, lists the unreadable commits, and marks the scan incomplete', async () => {
    const r = repo();
    r.commitFiles({ 'a.env': `KEY=${fakeCloudKeyId(21)}\n` });
    const damaged = r.commitFiles({
      'lost.txt': 'this blob will go missing\n',
      'b.env': `X=${fakeCloudKeyId(22)}\n`,
    });
    const later = r.commitFiles({ 'c.env': `KEY=${fakeCloudKeyId(23)}\n` });
    const blob = r.git('rev-parse', `${damaged}:lost.txt`);
    rmSync(join(r.dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
    const warnings: string[] = [];
    const result = await scan(r, { onWarning: (w) => warnings.push(w) });
    expect(result.incomplete).toBe(true);
    expect(result.unreadableCommits).toEqual([damaged]);
    expect(result.commitsScanned).toBe(2);
    const commits = result.findings.map((f) => f.commit);
    expect(commits).toContain(later);
    expect(warnings.join('\n')).toMatch(/could not be read/);
  });

  it('walks around a missing commit object: the rest of history is scanned, the commit listed', async () => {
    const r = repo();
    r.commitFiles({ 'a.env': `KEY=${fakeCloudKeyId(31)}\n` });
    const base = r.commitFiles({ 'b.env': `KEY=${fakeCloudKeyId(32)}\n` });
    const lost = r.commitFiles({ 'c.env': `KEY=${fakeCloudKeyId(33)}\n` });
    const tip = r.commitFiles({ 'd.env': `KEY=${fakeCloudKeyId(34)}\n` });
    r.git('checkout', '-q', '-b', 'side', base);
    const side = r.commitFiles({ 'e.env': `KEY=${fakeCloudKeyId(35)}\n` });
    r.git('tag', '-a', '-m', 'annotated', 'v1', side);
    rmSync(join(r.dir, '.git', 'objects', lost.slice(0, 2), lost.slice(2)));
    const result = await scan(r);
    expect(result.incomplete).toBe(true);
    // The child of the lost commit cannot be diffed against it, so it is unreadable too.
    expect(result.unreadableCommits).toEqual([lost, tip].sort());
    // Reached through the side branch, the ancestors of the lost commit are still scanned.
    expect(result.findings.map((f) => f.path).sort()).toEqual(['a.env', 'b.env', 'e.env']);
    expect(result.commitsScanned).toBe(3);
  });

  it('reports a clear error for a path that is not a repository or does not exist', async () => {
    const r = repo();
    const notRepo = join(r.dir, 'plain');
    r.write('plain/file.txt', 'x');
    await expect(scanRepository({ path: join(r.dir, 'plain', '.git', '..', 'nope') })).rejects.toThrow(
      /path does not exist/,
    );
    rmSync(join(r.dir, '.git'), { recursive: true });
    await expect(scanRepository({ path: notRepo })).rejects.toThrow(/not a git repository/);
    expect(readdirSync(notRepo)).toEqual(['file.txt']);
  });

  it('reports a missing git binary as one clear error', async () => {
    const r = repo();
    await expect(scanRepository({ path: r.dir, gitBinary: 'git-that-is-not-there' })).rejects.toThrow(
      /git is not installed/,
    );
  });
});

describe('progress and stopping', () => {
  it('reports 0 of the total before reading, then every commit up to the total', async () => {
    const r = repo();
    for (let i = 0; i < 5; i++) r.commitFiles({ 'a.txt': `${i}\n` });
    const seen: [number, number][] = [];
    await scan(r, { onProgress: (done, total) => seen.push([done, total]) });
    expect(seen[0]).toEqual([0, 5]);
    expect(seen.at(-1)).toEqual([5, 5]);
    expect(seen.map(([done]) => done)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('rejects with the reason once its signal aborts, before or during the scan', async () => {
    const r = repo();
    r.commitFiles({ 'a.txt': 'x\n' });
    const before = new AbortController();
    before.abort(new Error('stopped before'));
    await expect(scan(r, { signal: before.signal })).rejects.toThrow('stopped before');
    const during = new AbortController();
    const scanning = scan(r, { signal: during.signal });
    during.abort(new Error('stopped during'));
    await expect(scanning).rejects.toThrow(/stopped during|aborted/);
  });
});

describe('the gits a scan starts', () => {
  it('asks git where the objects are and whether the clone is shallow once, however many parts read them', async () => {
    const r = repo();
    r.commitFiles({ 'a.txt': 'one\n' }, 'first');
    r.commitFiles({ 'b.js': `const k = '${KEY}';\n` }, 'second');
    const log = join(r.dir, '.git', 'gits.txt');
    const binary = join(r.dir, '.git', 'git-logging');
    writeFileSync(binary, `#!/bin/sh\necho "$*" >> "${log}"\nexec git "$@"\n`, { mode: 0o755 });
    const result = await scanRepository({ path: r.dir, gitBinary: binary });
    expect(result.findings.map(where)).toEqual([
      `${result.findings[0]!.ruleId} b.js:1 @${r.head().slice(0, 7)}`,
    ]);
    const asked = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line.includes('--is-shallow-repository'));
    expect(asked).toHaveLength(1);
  });
});
