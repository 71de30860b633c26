import { afterEach, describe, expect, it } from 'vitest';
import { fakeCloudKeyId, fakeCodehostToken, fakePaymentKey } from '../../test/helpers/fake-secrets.js';
import { TestRepo } from '../../test/helpers/git-repo.js';
import { parseRefUpdates } from './pre-receive.js';
import { renderReport } from './report/index.js';
import { scanStaged } from './scan-staged.js';

const repos: TestRepo[] = [];
function repo(): TestRepo {
  const r = new TestRepo();
  repos.push(r);
  return r;
}
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

const where = (r: Awaited<ReturnType<typeof scanStaged>>) =>
  r.findings.map((f) => `${f.fingerprint} ${f.location} ${f.commit}`);

describe('svc scan --staged: the lines the index adds', () => {
  it('before the first commit: the whole index', async () => {
    const r = repo().write('config/deploy.env', `A=1\nKEY=${fakeCloudKeyId(1)}\n`);
    r.git('add', '-A');
    const result = await scanStaged({ path: r.dir });
    expect(where(result)).toEqual(['cloud-access-key-id:staged:config/deploy.env:2 code null']);
    expect(result).toMatchObject({ staged: true, commitsScanned: 0, passed: false, incomplete: false });
  });

  it('after it: only what the index adds to HEAD, at its line in the staged file; committed lines are not read', async () => {
    const r = repo();
    r.commitFiles({ 'app.env': `OLD=${fakeCloudKeyId(2)}\nX=1\n`, 'notes.md': 'hello\n' });
    r.write('app.env', `OLD=${fakeCloudKeyId(2)}\nX=1\nNEW=${fakeCodehostToken(3)}\n`);
    r.write('unstaged.env', `KEY=${fakePaymentKey(4)}\n`); // not added: not scanned
    r.git('add', 'app.env');
    const result = await scanStaged({ path: r.dir });
    expect(where(result)).toEqual(['codehost-token:staged:app.env:3 code null']);
  });

  it('a rename re-reports nothing; a deletion adds nothing; a test file is reported and does not fail', async () => {
    const r = repo();
    r.commitFiles({ 'a/secret.env': `K=${fakeCloudKeyId(5)}\n`, 'gone.env': `K=${fakeCloudKeyId(6)}\n` });
    r.write('b/.keep', '');
    r.git('mv', 'a/secret.env', 'b/secret.env');
    r.git('rm', '-q', 'gone.env');
    r.write('tests/fixture.env', `K=${fakeCloudKeyId(7)}\n`);
    r.git('add', '-A');
    const result = await scanStaged({ path: r.dir });
    expect(where(result)).toEqual(['cloud-access-key-id:staged:tests/fixture.env:1 test null']);
    expect(result.passed).toBe(true);
  });

  it('reads .svcignore from the default branch: a staged fingerprint listed there is ignored', async () => {
    const r = repo();
    r.commitFiles({ '.svcignore': 'cloud-access-key-id:staged:keys.env:1\n' });
    r.write('keys.env', `K=${fakeCloudKeyId(8)}\n`);
    r.git('add', '-A');
    const result = await scanStaged({ path: r.dir });
    expect(result.findings.map((f) => [f.fingerprint, f.ignored])).toEqual([
      ['cloud-access-key-id:staged:keys.env:1', true],
    ]);
    expect(result.passed).toBe(true);
  });

  it('nothing staged: passes, and the reports say what was scanned', async () => {
    const r = repo();
    r.commitFiles({ 'a.txt': 'x\n' });
    const result = await scanStaged({ path: r.dir });
    expect(result).toMatchObject({ findings: [], passed: true });
    const text = renderReport(result, 'text', { toolVersion: '0.0.0', color: false });
    expect(text).toContain('| staged changes scanned |');
    expect(text).not.toContain('Nothing to scan');
    const json = JSON.parse(renderReport(result, 'json', { toolVersion: '0.0.0', color: false }));
    expect(json.commitsScanned).toBe(0);
  });

  it('a staged finding in every report: commit null in JSON, "staged" where the commit would be', async () => {
    const secret = fakeCloudKeyId(9);
    const r = repo().write('x.env', `K=${secret}\n`);
    r.git('add', '-A');
    const result = await scanStaged({ path: r.dir });
    const json = JSON.parse(renderReport(result, 'json', { toolVersion: '0.0.0', color: false }));
    expect(json.findings[0]).toMatchObject({
      commit: null,
      fingerprint: 'cloud-access-key-id:staged:x.env:1',
    });
    for (const format of ['text', 'markdown', 'sarif', 'gitlab', 'json'] as const) {
      const report = renderReport(result, format, { toolVersion: '0.0.0', color: false });
      expect(report).toContain('cloud-access-key-id:staged:x.env:1');
      expect(report).not.toContain(secret);
    }
    const gitlab = JSON.parse(renderReport(result, 'gitlab', { toolVersion: '0.0.0', color: false }));
    expect(gitlab.vulnerabilities[0].location.commit).toBeUndefined();
  });
});

describe('pre-receive input', () => {
  const a = 'a'.repeat(40);
  const b = 'b'.repeat(40);
  it('reads "<old> <new> <ref>" lines', () => {
    expect(parseRefUpdates(`${a} ${b} refs/heads/main\n${'0'.repeat(40)} ${b} refs/tags/v1\n\n`)).toEqual([
      { old: a, new: b, ref: 'refs/heads/main' },
      { old: '0'.repeat(40), new: b, ref: 'refs/tags/v1' },
    ]);
  });
  it.each([
    'main',
    `${a} ${b}`,
    `${a} xyz refs/heads/main`,
    `${a.slice(1)} ${b} refs/heads/x`,
  ])('refuses %j with one clear line', (line) => {
    expect(() => parseRefUpdates(line)).toThrow(/not a pre-receive input line/);
  });
});
