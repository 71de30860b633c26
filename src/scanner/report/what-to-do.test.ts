import { afterEach, describe, expect, it } from 'vitest';
import { fakeCloudKeyId, fakeCodehostToken } from '../../../test/helpers/fake-secrets.js';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { RULES } from '../rules/index.js';
import { scanRepository } from '../scan.js';
import { renderReport } from './index.js';

const repos: TestRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

/** main, and an unmerged branch and a tag whose commit holds a key. */
function repoWithBranch(): TestRepo {
  const r = new TestRepo();
  repos.push(r);
  r.commitFiles({ 'README.md': 'app\n' });
  r.git('checkout', '-q', '-b', 'feature/keys');
  r.commitFiles({ 'deploy.env': `AWS=${fakeCloudKeyId(901)}\nGH=${fakeCodehostToken(902)}\n` });
  r.git('tag', 'v0.1-rc');
  r.git('checkout', '-q', 'main');
  return r;
}

describe('what a human report tells to do', () => {
  it('names the refs that hold a finding, even an unmerged branch', async () => {
    const r = repoWithBranch();
    const result = await scanRepository({ path: r.dir });
    const text = renderReport(result, 'text', { toolVersion: '0', color: false });
    expect(text).toMatch(/commit [0-9a-f]{12} on feature\/keys, v0\.1-rc by Ada Dev/);
    const markdown = renderReport(result, 'markdown', { toolVersion: '0', color: false });
    expect(markdown).toMatch(/`[0-9a-f]{12}` on feature\/keys, v0\.1-rc/);
    // The JSON report's shape is the contract's: no refs there.
    expect(renderReport(result, 'json', { toolVersion: '0', color: false })).not.toContain('feature/keys');
  });

  it('says what to do at the provider for each failing finding, and that nothing was checked', async () => {
    const r = repoWithBranch();
    const result = await scanRepository({ path: r.dir });
    const text = renderReport(result, 'text', { toolVersion: '0', color: false });
    expect(text).toContain('what to do: Deactivate and delete the key pair in AWS IAM');
    expect(text).toContain('what to do: Revoke it: a personal token at https://github.com/settings/tokens');
    expect(text).toMatch(/FAIL: 2 failing findings in code; credentials not checked\n$/);
    const markdown = renderReport(result, 'markdown', { toolVersion: '0', color: false });
    expect(markdown).toContain('**What to do:** revoke or rotate each credential at its provider');
    expect(markdown).toContain('- GitHub token: Revoke it');
    const gitlab = JSON.parse(renderReport(result, 'gitlab', { toolVersion: '0', color: false }));
    expect(gitlab.vulnerabilities.map((v: { solution: string }) => v.solution.slice(0, 20))).toEqual([
      'Deactivate and delet',
      'Revoke it: a persona',
    ]);
  });

  it('every rule has a remediation that names where to act', () => {
    for (const rule of RULES) expect(rule.remediation, rule.id).toMatch(/^[A-Z].{40,}\.$/);
    for (const id of ['cloud-access-key-id', 'codehost-token', 'codehost-fine-grained-pat', 'chat-token']) {
      expect(RULES.find((r) => r.id === id)?.remediation).toMatch(/https:\/\//);
    }
  });
});
