import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildEdgeHistory, deleteObjects } from '../helpers/edge-history.js';
import { FakeProviders } from '../helpers/fake-providers.js';
import { fakeCodehostToken, fakePaymentKey } from '../helpers/fake-secrets.js';
import { TestRepo } from '../helpers/git-repo.js';
import { CLI, runSvc } from '../helpers/svc-cli.js';

/**
 * `svc scan --cache FILE`, through the built CLI: after every change to the repository,
 * a scan with the cache gives the report a full scan gives, byte for byte, warnings aside.
 */
let repo: TestRepo;
let providers: FakeProviders;
let work: string;
let cache: string;
let planted: string[];
const ACTIVE = fakeCodehostToken(71);
const REVOKED = fakePaymentKey(72);

beforeAll(async () => {
  expect(statSync(CLI).isFile(), 'run `npm run build` first').toBe(true);
  providers = await FakeProviders.start();
});
afterAll(async () => {
  await providers.stop();
});
// Each test gets a history of its own (the edge cases, and a file with one active and one revoked
// credential), a work directory and a cache, so the tests run in any order.
beforeEach(() => {
  providers.set(ACTIVE, 'active').set(REVOKED, 'revoked');
  repo = new TestRepo();
  planted = buildEdgeHistory(repo);
  repo.commitFiles({ 'deploy/keys.env': `GH=${ACTIVE}\nSTRIPE=${REVOKED}\n` });
  planted.push(ACTIVE, REVOKED);
  work = mkdtempSync(join(tmpdir(), 'svc-cache-test-'));
  cache = join(work, 'scan.cache');
  return () => {
    repo.cleanup();
    rmSync(work, { recursive: true, force: true });
  };
});

async function scan(args: string[], path = repo.dir) {
  const r = await runSvc(['scan', path, '--format', 'json', ...args], { env: providers.env });
  expect(r.code === 0 || r.code === 1 || r.code === 3, r.stderr).toBe(true);
  return r;
}

/** Scans with the cache and without, and holds them to the same report and exit code. */
async function expectSameAsFullScan(path = repo.dir, cacheFile = cache) {
  const full = await scan([], path);
  const cached = await scan(['--cache', cacheFile], path);
  expect(cached.stdout).toBe(full.stdout);
  expect(cached.code).toBe(full.code);
  return { full, cached };
}

describe('svc scan --cache', () => {
  it("makes the cache file's missing folders (the README's .svc-cache/scan.cache on a fresh clone)", async () => {
    const nested = join(work, '.svc-cache', 'deeper', 'scan.cache');
    const first = await scan(['--cache', nested]);
    expect(first.stderr).not.toMatch(/ENOENT|warning/);
    expect(statSync(nested).isFile()).toBe(true);
    // The second run reads it: no commit is read again but those with findings.
    await expectSameAsFullScan(repo.dir, nested);
  });

  it('gives a full scan report on the first scan, on an unchanged history, and after new commits', async () => {
    const first = await expectSameAsFullScan();
    expect(first.cached.stderr).toBe('');
    const report = JSON.parse(first.full.stdout);
    expect(report.findings.length).toBeGreaterThan(5);
    // The credential checks ran on the cached scan too: its findings were read again.
    const statuses = report.findings.map((f: { verification: string }) => f.verification);
    expect(statuses).toContain('active');
    expect(statuses).toContain('revoked');
    await expectSameAsFullScan();
    repo.commitFiles({ 'src/new.js': 'export const x = 1;\n' });
    await expectSameAsFullScan();
    repo.commitFiles({ 'src/new.js': `export const gh = "${fakeCodehostToken(73)}";\n` });
    planted.push(fakeCodehostToken(73));
    await expectSameAsFullScan();
  });

  it('follows new branches, deleted branches and a force-push', async () => {
    repo.git('checkout', '-q', '-b', 'topic');
    repo.commitFiles({ 'topic.env': `STRIPE=${fakePaymentKey(74)}\n` });
    planted.push(fakePaymentKey(74));
    repo.commitFiles({ 'topic.txt': 'more\n' });
    await expectSameAsFullScan();
    repo.git('checkout', '-q', 'main');
    repo.git('branch', '-q', '-D', 'topic');
    await expectSameAsFullScan();
    // Rewrite the last two commits of main: the old ones disappear, new ones appear.
    repo.git('reset', '-q', '--hard', 'HEAD~2');
    repo.commitFiles({ 'src/new.js': `export const gh = "${fakeCodehostToken(75)}"; // rewritten\n` });
    planted.push(fakeCodehostToken(75));
    repo.git('gc', '-q', '--prune=now');
    await expectSameAsFullScan();
  });

  it('applies a changed .svcignore and new verification results', async () => {
    const before = JSON.parse((await scan(['--cache', cache])).stdout);
    const ignored = before.findings.find((f: { location: string }) => f.location === 'code').fingerprint;
    repo.commitFiles({ '.svcignore': `${ignored}\n` });
    const { cached } = await expectSameAsFullScan();
    expect(JSON.parse(cached.stdout).findings.filter((f: { ignored: boolean }) => f.ignored)).toHaveLength(1);
    providers.set(ACTIVE, 'revoked').set(REVOKED, 'active');
    const flipped = await expectSameAsFullScan();
    const keys = JSON.parse(flipped.cached.stdout).findings.filter(
      (f: { path: string }) => f.path === 'deploy/keys.env',
    );
    // ACTIVE first: the credential still working is the first to rotate.
    expect(
      keys.map((f: { ruleId: string; verification: string }) => `${f.ruleId} ${f.verification}`),
    ).toEqual(['payment-live-key active', 'codehost-token revoked']);
  });

  it('lists only the new commits while every commit a ref pointed at stays reachable', async () => {
    /** How git's trace shows the start of a full listing: the refs the native walk starts from. */
    const FULL_LISTING = "for-each-ref '--format=%(objectname)'";
    const trace = join(work, 'git.trace');
    /** The git commands a cached scan ran that list commits; the report checked against a full scan. */
    const listings = async () => {
      const full = await scan([]);
      rmSync(trace, { force: true });
      const r = await runSvc(['scan', repo.dir, '--format', 'json', '--cache', cache], {
        env: { ...providers.env, GIT_TRACE: trace },
      });
      expect(r.stdout).toBe(full.stdout);
      // A full listing is the native reader's walk from every ref's object (native-commit-walk.ts).
      return readFileSync(trace, 'utf8')
        .split('\n')
        .filter((l) => l.includes('built-in: git rev-list') || l.includes(FULL_LISTING))
        .map((l) => l.replace(/^.*built-in: git /, ''));
    };
    await scan(['--cache', cache]);
    repo.commitFiles({ 'src/next.js': `export const gh = "${fakeCodehostToken(76)}";\n` });
    planted.push(fakeCodehostToken(76));
    expect(await listings()).toEqual(['rev-list --parents --all --stdin']);
    // A branch, then merged and deleted: its old tip is the merge's parent, then reachable from main.
    repo.git('checkout', '-q', '-b', 'topic');
    repo.commitFiles({ 'topic.txt': 'topic\n' });
    repo.git('checkout', '-q', 'main');
    repo.commitFiles({ 'main.txt': 'main\n' });
    expect(await listings()).toEqual(['rev-list --parents --all --stdin']);
    repo.git('merge', '-q', '--no-ff', '-m', 'merge topic', 'topic');
    repo.git('branch', '-q', '-D', 'topic');
    expect(await listings()).toEqual(['rev-list --parents --all --stdin']);
    repo.git('tag', '-a', '-m', 'release', 'v1');
    repo.git('checkout', '-q', '-b', 'gone');
    repo.commitFiles({ 'gone.env': `STRIPE=${fakePaymentKey(77)}\n` });
    planted.push(fakePaymentKey(77));
    expect(await listings()).toEqual(['rev-list --parents --all --stdin']);
    // A branch deleted unmerged: its old tip still exists but is no longer reachable, and its commits
    // must leave the report: every commit is listed again.
    repo.git('checkout', '-q', 'main');
    repo.git('branch', '-q', '-D', 'gone');
    expect(await listings()).toEqual([
      'rev-list --parents --all --stdin',
      'rev-list -n 1 --stdin --not --all',
      FULL_LISTING,
    ]);
    // main rewritten, but its old tip is the tag's: still reachable.
    repo.git('reset', '-q', '--hard', 'HEAD~1');
    repo.commitFiles({ 'main.txt': 'rewritten\n' });
    expect(await listings()).toEqual(['rev-list --parents --all --stdin']);
    // The tag gone too: the old main's commits are unreachable, listed in full again.
    repo.git('tag', '-d', 'v1');
    expect(await listings()).toEqual([
      'rev-list --parents --all --stdin',
      'rev-list -n 1 --stdin --not --all',
      FULL_LISTING,
    ]);
  });

  it('reads only the commits it does not record as clean', async () => {
    // Damage a clean, cached commit's blob: a full scan notices, the cached one never reads it.
    const clone = join(work, 'clone');
    execFileSync('git', ['clone', '-q', '--no-local', '--mirror', repo.dir, clone]);
    const cloneCache = join(work, 'clone.cache');
    await scan(['--cache', cloneCache], clone);
    // The version of src/long.js from the commit that edited it far from its secret: that commit
    // and the next (which diffs against it) hold no finding.
    const edits = execFileSync(
      'git',
      ['-C', clone, 'log', '--reverse', '--format=%H', 'main', '--', 'src/long.js'],
      {
        encoding: 'utf8',
      },
    ).split('\n');
    const blob = execFileSync('git', ['-C', clone, 'rev-parse', `${edits[2]}:src/long.js`], {
      encoding: 'utf8',
    }).trim();
    deleteObjects(clone, [blob]);
    const full = JSON.parse((await scan([], clone)).stdout);
    const cached = JSON.parse((await scan(['--cache', cloneCache], clone)).stdout);
    expect(full.unreadableCommits.length).toBeGreaterThan(0);
    expect(cached.unreadableCommits).toEqual([]);
    expect(cached.findings).toEqual(full.findings);
  });

  it('reads a commit with findings again only in the files that had them, with the same report', async () => {
    // A file with a credential is renamed twice; the second rename also adds a credential, on a
    // line too long to be read straight from the file (so git's diff reads it), and changes an
    // unrelated file, whose blob is then removed from the repository. The diff looks only at the
    // paths of the cached findings: the file's first name and its last. Its middle name is not
    // among them, so the limited diff shows the file as new, with the old credential "added" too.
    const old = fakeCodehostToken(76);
    const added = fakePaymentKey(77);
    planted.push(old, added);
    // Long enough that git still calls the second rename a rename after the long line is added.
    const body = Array.from({ length: 20_000 }, (_, i) => `export const value${i} = ${i};`).join('\n');
    repo.commitFiles({ 'src/config.js': `${body}\nexport const gh = "${old}";\n`, 'src/other.js': 'a\n' });
    repo.git('mv', 'src/config.js', 'src/settings.js');
    repo.commit('rename');
    repo.git('mv', 'src/settings.js', 'src/app.js');
    const long = `export const stripe = "${added}"; // ${'x'.repeat(300_000)}`;
    repo.write('src/app.js', `${body}\nexport const gh = "${old}";\n${long}\n`);
    repo.write('src/other.js', 'b\n');
    const both = repo.commit('rename again, add a credential, and change another file');
    const clone = join(work, 'clone');
    execFileSync('git', ['clone', '-q', '--no-local', '--mirror', repo.dir, clone]);
    const cloneCache = join(work, 'clone.cache');
    const first = JSON.parse((await scan(['--cache', cloneCache], clone)).stdout);
    const ofBoth = first.findings.filter((f: { commit: string }) => f.commit === both);
    expect(ofBoth.map((f: { path: string; line: number }) => `${f.path}:${f.line}`)).toEqual([
      'src/app.js:20002',
    ]);
    deleteObjects(clone, [repo.git('rev-parse', `${both}:src/other.js`).trim()]);
    const full = JSON.parse((await scan([], clone)).stdout);
    expect(full.unreadableCommits).toContain(both);
    // The cached scan reads `both` again, but only at those paths: the missing blob is not read,
    // and the old credential the limited diff also shows as added is not reported.
    const cached = JSON.parse((await scan(['--cache', cloneCache], clone)).stdout);
    expect(cached.unreadableCommits).not.toContain(both);
    expect(cached.findings).toEqual(first.findings);
  });

  it('reads a shallow clone’s boundary commits again, as they add every line there', async () => {
    const full = join(work, 'full');
    const shallow = join(work, 'shallow');
    execFileSync('git', ['clone', '-q', '--no-local', '--mirror', repo.dir, full]);
    execFileSync('git', ['clone', '-q', '--depth', '3', '--no-single-branch', `file://${repo.dir}`, shallow]);
    const shared = join(work, 'shared.cache');
    await scan(['--cache', shared], full);
    const { cached } = await expectSameAsFullScan(shallow, shared);
    expect(cached.stderr).toMatch(/shallow clone/);
  });

  it('ignores, with a warning, a damaged cache and one from another scanner version', async () => {
    await scan(['--cache', cache]);
    const good = readFileSync(cache, 'utf8');
    writeFileSync(cache, good.slice(0, good.length - 20));
    const { cached } = await expectSameAsFullScan();
    expect(cached.stderr).toMatch(/scan cache .* is damaged; ignoring it and scanning in full/);
    writeFileSync(cache, good.replace(/"scanner":"[^"]*"/, '"scanner":"0.0.0-other"'));
    const other = await expectSameAsFullScan();
    expect(other.cached.stderr).toMatch(/another scanner or rule version/);
    // The first format (commit ids only), as an older svc wrote it.
    writeFileSync(cache, good.replace(/^svc-scan-cache 2\n/, 'svc-scan-cache 1\n'));
    expect((await expectSameAsFullScan()).cached.stderr).toMatch(/another scanner or rule version/);
    writeFileSync(cache, 'not a cache at all');
    expect((await expectSameAsFullScan()).cached.stderr).toMatch(/damaged/);
    // Each of those scans rewrote it whole, atomically: no temporary file is left beside it.
    expect(readdirSync(work).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it('never writes a secret, or even a masked value, to the cache or a report', async () => {
    const outputs = ['json', 'sarif', 'markdown', 'text', 'gitlab'].flatMap((f) => [
      '--format',
      f,
      '--output',
      join(work, `report.${f}`),
    ]);
    await runSvc(['scan', repo.dir, '--cache', cache, ...outputs], { env: providers.env });
    const written = readdirSync(work, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name))
      .filter((p) => !p.includes(`${join(work, 'clone')}/`) && !/\/(full|shallow)\//.test(p));
    expect(written).toContain(cache);
    expect(planted.length).toBeGreaterThan(10);
    for (const file of written) {
      const content = readFileSync(file, 'latin1');
      for (const secret of planted)
        expect(content.includes(secret), `${secret.slice(0, 4)}… in ${file}`).toBe(false);
    }
    const cacheText = readFileSync(cache, 'utf8');
    const report = JSON.parse(readFileSync(join(work, 'report.json'), 'utf8'));
    for (const f of report.findings) expect(cacheText.includes(f.maskedValue)).toBe(false);
    // After the two header lines: commit ids, and for the commits with findings where they are
    // (rule, path, line: what the report's fingerprints already show), nothing else.
    const places: string[] = [];
    for (const line of cacheText.split('\n').slice(2, -1)) {
      const [id, list, ...rest] = line.split('\t');
      expect(id).toMatch(/^[0-9a-f]{40}$/);
      expect(rest).toEqual([]);
      for (const [rule, path, at] of list === undefined ? [] : JSON.parse(list))
        places.push(`${rule}:${id!.slice(0, 12)}:${path}:${at}`);
    }
    expect(places.sort()).toEqual(report.findings.map((f: { fingerprint: string }) => f.fingerprint).sort());
  });
});
