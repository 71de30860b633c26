import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeProviders } from '../helpers/fake-providers.js';
import { fakeChatToken, fakeCloudKeyId, fakeCodehostToken, fakePaymentKey } from '../helpers/fake-secrets.js';
import { TestRepo } from '../helpers/git-repo.js';
import { runSvc } from '../helpers/svc-cli.js';

const ACTIVE_TOKEN = fakeCodehostToken(701);
const REVOKED_KEY = fakePaymentKey(702);
const CHAT = fakeChatToken(703);
const CLOUD = fakeCloudKeyId(704);
const SECRETS = [ACTIVE_TOKEN, REVOKED_KEY, CHAT, CLOUD];

let providers: FakeProviders;
let repo: TestRepo;
let work: string;

beforeAll(async () => {
  providers = await FakeProviders.start();
  providers.set(ACTIVE_TOKEN, 'active').set(REVOKED_KEY, 'revoked').set(CHAT, { chatError: 'token_revoked' });
  repo = new TestRepo();
  repo.commitFiles({ 'src/deploy.ts': `const gh = '${ACTIVE_TOKEN}';\nconst cloud = '${CLOUD}';\n` });
  // The same payment key in five commits: one check, five findings.
  for (let i = 0; i < 5; i++) repo.commitFiles({ [`billing/job${i}.env`]: `STRIPE=${REVOKED_KEY}\n` });
  repo.commitFiles({ 'tests/notify_test.py': `SLACK = "${CHAT}"\n` });
});
afterAll(async () => {
  await providers.stop();
  repo.cleanup();
});
beforeEach(() => {
  providers.requests.length = 0;
  work = mkdtempSync(join(tmpdir(), 'svc-verify-run-'));
});

/** Every file under a folder, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

describe('svc scan with credential checks (on by default)', () => {
  it('marks findings ACTIVE or (revoked), counts active ones, and checks each credential once', async () => {
    const r = await runSvc(['scan', repo.dir, '--format', 'json'], { env: providers.env });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    const status = (path: string) =>
      report.findings.find((f: { path: string }) => f.path === path).verification;
    expect(status('src/deploy.ts')).toBeDefined();
    const byRule = Object.fromEntries(
      report.findings.map((f: { ruleId: string; verification: string }) => [f.ruleId, f.verification]),
    );
    expect(byRule).toEqual({
      'codehost-token': 'active',
      'cloud-access-key-id': 'unchecked',
      'payment-live-key': 'revoked',
      'chat-token': 'revoked',
    });
    expect(report.findings.filter((f: { ruleId: string }) => f.ruleId === 'payment-live-key')).toHaveLength(
      5,
    );
    expect(report.summary).toMatchObject({ active: 1, revoked: 6, unchecked: 1 });
    expect(providers.requests.map((q) => q.path).sort()).toEqual([
      '/chat/api/auth.test',
      '/codehost/rate_limit',
      '/payment/v1/balance',
    ]);
  });

  it('shows the statuses in the text and markdown reports and in SARIF', async () => {
    const text = await runSvc(['scan', repo.dir], { env: providers.env });
    expect(text.stdout).toMatch(/GitHub token \(codehost-token\)\s+ACTIVE/);
    expect(text.stdout).toMatch(/\(revoked\)/);
    expect(text.stdout).toMatch(/; 1 active credential$/m);
    const md = await runSvc(['scan', repo.dir, '--format', 'markdown'], { env: providers.env });
    expect(md.stdout).toContain('**ACTIVE**');
    const sarif = JSON.parse(
      (await runSvc(['scan', repo.dir, '--format', 'sarif'], { env: providers.env })).stdout,
    );
    const verifications = sarif.runs[0].results.map(
      (x: { properties: { verification: string } }) => x.properties.verification,
    );
    expect(verifications).toContain('active');
    expect(verifications).toContain('revoked');
  });

  it('makes no request with --no-verify', async () => {
    const r = await runSvc(['scan', repo.dir, '--no-verify', '--format', 'json'], { env: providers.env });
    expect(r.code).toBe(1);
    expect(providers.requests).toEqual([]);
    expect(JSON.parse(r.stdout).summary).toMatchObject({ active: 0, revoked: 0, unchecked: 8 });
  });

  it('sends each secret only to its own provider, and writes it nowhere', async () => {
    const tmp = join(work, 'tmp');
    const out = join(work, 'reports');
    const env = { ...providers.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp };
    const { mkdirSync } = await import('node:fs');
    mkdirSync(tmp);
    mkdirSync(out);
    const repoFilesBefore = filesUnder(repo.dir).sort();
    const runs = [];
    for (const format of ['text', 'json', 'sarif', 'markdown']) {
      runs.push(
        await runSvc(['scan', repo.dir, '--format', format, '--output', join(out, `r.${format}`)], { env }),
      );
    }
    runs.push(await runSvc(['scan', repo.dir], { env }));
    // A provider that fails every way still leaks nothing into reports or errors.
    const failing = await FakeProviders.start();
    for (const s of SECRETS) failing.set(s, 'server-error');
    runs.push(await runSvc(['scan', repo.dir, '--format', 'json'], { env: { ...env, ...failing.env } }));
    await failing.stop();

    // The scan writes into the repository nothing at all (its work tree holds the secrets by design).
    expect(filesUnder(repo.dir).sort()).toEqual(repoFilesBefore);
    const written = [...filesUnder(out), ...filesUnder(tmp)].map((f) => readFileSync(f, 'latin1'));
    const printed = runs.flatMap((r) => [r.stdout, r.stderr]);
    expect(filesUnder(out)).toHaveLength(4);
    for (const secret of SECRETS) {
      for (const [i, text] of [...written, ...printed].entries()) {
        expect(text.includes(secret), `output ${i} holds ${secret.slice(0, 4)}…: ${text.slice(0, 300)}`).toBe(
          false,
        );
      }
    }
    // Where each secret did go: its own provider's endpoint, nowhere else.
    for (const q of providers.requests) {
      const secret = q.authorization?.replace('Bearer ', '');
      const expected = {
        [ACTIVE_TOKEN]: '/codehost/rate_limit',
        [REVOKED_KEY]: '/payment/v1/balance',
        [CHAT]: '/chat/api/auth.test',
      };
      expect(q.path).toBe(expected[secret ?? '']);
    }
    expect(providers.requests.some((q) => q.authorization?.includes(CLOUD))).toBe(false);
    rmSync(work, { recursive: true, force: true });
  });

  it('says which provider setting is wrong, in one line', async () => {
    const r = await runSvc(['scan', repo.dir], { env: { SVC_CHAT_API_URL: 'not a url' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^svc: invalid SVC_CHAT_API_URL: .*\n$/);
  });
});
