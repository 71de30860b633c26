import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeCloudKeyId, fakeCodehostToken } from '../helpers/fake-secrets.js';
import { TestRepo } from '../helpers/git-repo.js';
import { OFFLINE_PROVIDERS, runSvc } from '../helpers/svc-cli.js';

const repos: TestRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

const svc = (args: string[], cwd: string) => runSvc(args, { env: OFFLINE_PROVIDERS, cwd });

describe('svc baseline: accept the past, fail on what is new', () => {
  it('appends the failing findings not yet ignored under a dated comment; the next scan passes, a new secret fails', async () => {
    const r = new TestRepo();
    repos.push(r);
    r.commitFiles({ '.svcignore': '# accepted by hand\nsomething:000000000000:x:1' }); // no final newline
    r.commitFiles({
      'app.env': `K=${fakeCloudKeyId(951)}\nT=${fakeCodehostToken(952)}\n`,
      'tests/t.env': `K=${fakeCloudKeyId(953)}\n`,
    });
    const before = readdirSync(r.dir).sort();
    expect((await svc(['scan', '--no-verify'], r.dir)).code).toBe(1);

    const baseline = await svc(['baseline'], r.dir);
    expect(baseline.code).toBe(0);
    expect(baseline.stdout).toMatch(
      /^svc: 2 finding\(s\) accepted: their ignore lines were added to .*\.svcignore\.\nCommit it on main/,
    );
    const file = readFileSync(join(r.dir, '.svcignore'), 'utf8');
    expect(file).toMatch(
      /^# accepted by hand\nsomething:000000000000:x:1\n\n# svc baseline \d{4}-\d{2}-\d{2}: 2 finding\(s\) in history accepted\ncloud-access-key-id:[0-9a-f]{12}:app\.env:1\ncodehost-token:[0-9a-f]{12}:app\.env:2\n$/,
    );
    // Nothing else written; a second run adds nothing (the lines are in the work tree's file already).
    expect(readdirSync(r.dir).sort()).toEqual(before);
    expect((await svc(['baseline'], r.dir)).stdout).toMatch(/nothing to accept/);
    expect(readFileSync(join(r.dir, '.svcignore'), 'utf8')).toBe(file);

    r.commit('baseline');
    expect((await svc(['scan', '--no-verify'], r.dir)).code).toBe(0);
    r.commitFiles({ 'new.env': `K=${fakeCloudKeyId(954)}\n` });
    const after = await svc(['scan', '--no-verify'], r.dir);
    expect(after.code).toBe(1);
    expect(after.stdout).toMatch(/Failing findings in code: 1\n\n.*\n {4}new\.env:1/);
  });

  it('refuses a bare repository, with one line', async () => {
    const r = new TestRepo({ bare: true });
    repos.push(r);
    const out = await svc(['baseline', r.dir], r.dir);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/no work tree to write \.svcignore in/);
  });
});
