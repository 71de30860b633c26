import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fakeChatToken,
  fakeCloudKeyId,
  fakeCodehostToken,
  fakeGenericValue,
  fakePaymentKey,
  fakeWebApiKey,
} from '../helpers/fake-secrets.js';
import { TestRepo } from '../helpers/git-repo.js';
import { CONTRACT_REPORT_KEYS } from '../helpers/scan-results.js';

/** The built CLI, as the installed `svc` runs it: these tests exercise the real entry point, not the sources. */
import { CLI, OFFLINE_PROVIDERS } from '../helpers/svc-cli.js';

function svc(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...OFFLINE_PROVIDERS, ...options.env },
    cwd: options.cwd,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const SECRETS = [
  fakeCloudKeyId(501),
  fakeCodehostToken(502),
  fakeChatToken(503),
  fakePaymentKey(504),
  fakeWebApiKey(505),
  fakeGenericValue(506),
];

let repo: TestRepo;
let out: string;

beforeAll(() => {
  expect(statSync(CLI).isFile(), 'run `npm run build` first').toBe(true);
  repo = new TestRepo();
  repo.commitFiles({
    'src/config.js': `export const aws = '${SECRETS[0]}';\nexport const gh = '${SECRETS[1]}';\n`,
    'tests/fixtures/slack.json': `{"token": "${SECRETS[2]}"}\n`,
  });
  repo.commitFiles({
    'billing.env': `STRIPE=${SECRETS[3]}\nMAPS=${SECRETS[4]}\napi_key = "${SECRETS[5]}"\n`,
  });
  out = mkdtempSync(join(tmpdir(), 'svc-out-'));
});
afterAll(() => {
  repo.cleanup();
  rmSync(out, { recursive: true, force: true });
});

describe('svc scan', () => {
  it('fails with exit 1 and a text report for secrets in code', () => {
    const r = svc(['scan', repo.dir, '--no-verify']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL/);
    expect(r.stdout).toContain('ignore: cloud-access-key-id:');
    expect(r.stderr).toBe('');
  });

  it('reads the configuration only to check credentials: a bad provider address fails a checking scan at once', () => {
    const bad = { SVC_CODEHOST_API_URL: 'not a url' };
    const unchecked = svc(['scan', repo.dir, '--no-verify', '--format', 'json'], { env: bad });
    expect(unchecked.code, unchecked.stderr).toBe(1);
    expect(JSON.parse(unchecked.stdout)).toMatchObject({ commitsScanned: 2, passed: false });
    const checked = svc(['scan', repo.dir, '--format', 'json'], { env: bad });
    expect(checked.code).toBe(2);
    expect(checked.stdout).toBe('');
    expect(checked.stderr).toMatch(/SVC_CODEHOST_API_URL/);
  });

  it('writes each format to --output, and JSON has the documented shape', () => {
    for (const format of ['text', 'json', 'sarif', 'markdown']) {
      const file = join(out, `report.${format}`);
      const r = svc(['scan', repo.dir, '--no-verify', '--format', format, '--output', file]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
    }
    const json = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    expect(Object.keys(json)).toEqual(CONTRACT_REPORT_KEYS);
    expect(json).toMatchObject({ version: 1, repository: repo.dir, commitsScanned: 2, passed: false });
    expect(json.summary).toMatchObject({ total: 6, failing: 5, byLocation: { code: 5, test: 1 } });
  });

  it('writes several reports from one scan, the last format without an output to stdout', () => {
    const md = join(out, 'multi.md');
    const gitlab = join(out, 'multi.gitlab.json');
    const r = svc([
      'scan',
      repo.dir,
      '--no-verify',
      '--format',
      'markdown',
      '--output',
      md,
      '--format',
      'gitlab',
      '--output',
      gitlab,
      '--format',
      'sarif',
    ]);
    expect(r.code).toBe(1);
    expect(readFileSync(md, 'utf8')).toMatch(/^## svc secret scan: /);
    const report = JSON.parse(readFileSync(gitlab, 'utf8'));
    expect(report.scan.type).toBe('secret_detection');
    expect(report.vulnerabilities).toHaveLength(6);
    expect(JSON.parse(r.stdout).version).toBe('2.1.0');
  });

  it('scans the current directory by default', () => {
    const r = svc(['scan', '--format', 'json', '--no-verify'], { cwd: repo.dir });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).repository).toBe('.');
  });

  it('never writes a full secret anywhere: stdout, stderr or any file it wrote', () => {
    // Its own folder and its own reports: reading the files other tests wrote made this test fail
    // when run alone or before them.
    const own = mkdtempSync(join(tmpdir(), 'svc-nosecret-'));
    try {
      const formats = ['text', 'json', 'sarif', 'markdown', 'gitlab'];
      const outputs = [
        svc(['scan', repo.dir, '--no-verify']),
        svc(['scan', repo.dir, '--format', 'json']),
        ...formats.map((f) =>
          svc(['scan', repo.dir, '--no-verify', '--format', f, '--output', join(own, f)]),
        ),
      ];
      const written = readdirSync(own).map((f) => readFileSync(join(own, f), 'utf8'));
      const everything = [...outputs.flatMap((o) => [o.stdout, o.stderr]), ...written].join('\n');
      expect(written).toHaveLength(formats.length);
      for (const secret of SECRETS) {
        expect(everything).not.toContain(secret);
        expect(everything).toContain(secret.slice(0, 4)); // the masked value is there
      }
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('passes with exit 0 when every code finding is ignored', () => {
    const clean = new TestRepo();
    try {
      const c = clean.commitFiles({ 'app.env': `KEY=${fakeCloudKeyId(601)}\n` });
      clean.commitFiles({ '.svcignore': `cloud-access-key-id:${c.slice(0, 12)}:app.env:1\n` });
      const r = svc(['scan', clean.dir, '--no-verify']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/PASS/);
    } finally {
      clean.cleanup();
    }
  });

  it('exits 3 when objects are missing and nothing else failed', () => {
    const damaged = new TestRepo();
    try {
      const c = damaged.commitFiles({ 'a.txt': 'gone\n' });
      damaged.commitFiles({ 'b.txt': 'fine\n' });
      const blob = damaged.git('rev-parse', `${c}:a.txt`);
      rmSync(join(damaged.dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
      const r = svc(['scan', damaged.dir, '--format', 'json']);
      expect(r.code).toBe(3);
      expect(JSON.parse(r.stdout)).toMatchObject({ incomplete: true, unreadableCommits: [c] });
      expect(r.stderr).toMatch(/^svc: warning: 1 commit\(s\) could not be read/);
    } finally {
      damaged.cleanup();
    }
  });

  it('passes an empty repository', () => {
    const empty = new TestRepo();
    try {
      const r = svc(['scan', empty.dir, '--format', 'json']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ commitsScanned: 0, passed: true });
    } finally {
      empty.cleanup();
    }
  });
});

describe('bad input: one clear line, exit 2, never a stack trace', () => {
  const oneLine = (stderr: string) => {
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).not.toMatch(/\n\s+at /);
  };

  it.each([
    [['scan', '--bogus'], /svc: Unknown option --bogus/],
    [['scan', '--format', 'xml'], /unknown format "xml"/],
    [['scan', '/no/such/path'], /path does not exist: \/no\/such\/path/],
    [['scan', 'a', 'b'], /expected one PATH/],
    [['scan', '--output', 'a', '--output', 'b', '--format', 'json'], /each --output needs its own --format/],
    [
      ['scan', '--format', 'json', '--format', 'sarif', '--format', 'text'],
      /only one report can go to stdout/,
    ],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['scan', '.', '--default-branch', 'nope'], /default branch not found: nope/],
  ])('%j', (args, message) => {
    const r = svc(args as string[], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    oneLine(r.stderr);
  });

  it('not a repository', () => {
    const r = svc(['scan', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not a git repository/);
    oneLine(r.stderr);
  });

  it('git missing from PATH', () => {
    const r = svc(['scan', repo.dir], { env: { ...process.env, PATH: '/nonexistent' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/git is not installed or not on PATH/);
    oneLine(r.stderr);
  });

  it('an unwritable --output', () => {
    const r = svc(['scan', repo.dir, '--output', '/no/such/dir/report.txt']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot write \/no\/such\/dir\/report.txt: ENOENT/);
    oneLine(r.stderr);
  });
});

describe('help and version', () => {
  it('prints the version and the help', () => {
    expect(svc(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = svc(['--help']).stdout;
    for (const line of [
      'svc scan [PATH]',
      'svc serve',
      'svc admin COMMAND',
      'svc check-command',
      'svc hooks config',
    ]) {
      expect(help).toContain(line);
    }
    expect(svc(['scan', '--help']).stdout).toMatch(/--no-verify/);
  });
});
