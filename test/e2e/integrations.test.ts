import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without type declarations
import { gitlabTemplate } from '../../build/build-integrations.mjs';
import { fakeCloudKeyId } from '../helpers/fake-secrets.js';
import { TestRepo } from '../helpers/git-repo.js';
import { freePort } from '../helpers/service-process.js';
import { OFFLINE_PROVIDERS } from '../helpers/svc-cli.js';
import { startTestApp } from '../helpers/test-app.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BINARY = join(ROOT, 'dist', 'svc-linux-x64');
const SCRIPT = join(ROOT, 'integrations', 'ci-scan.sh');
const TEMPLATE = join(ROOT, 'integrations', 'gitlab', 'svc-secret-scan.gitlab-ci.yml');
const RUNNER_REQUEST_TOKEN = 'runner-request-token';

/** A running service on loopback that serves the real executable, with fake identity issuers. */
async function service(options: Parameters<typeof startTestApp>[0] = {}) {
  const t = await startTestApp({ binaryFile: BINARY, ...options });
  const server = await t.listen();
  return {
    t,
    url: server.url,
    async stop() {
      await server.close();
      await t.cleanup();
    },
  };
}

/** GitHub's token endpoint as the runner offers it: ACTIONS_ID_TOKEN_REQUEST_URL/TOKEN. */
async function runnerTokenEndpoint(sign: (audience: string) => Promise<string>) {
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '', 'http://x');
    if (req.headers.authorization !== `bearer ${RUNNER_REQUEST_TOKEN}`) {
      res.writeHead(401).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ count: 1, value: await sign(url.searchParams.get('audience') ?? '') }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token?api-version=2.0`, server };
}

function run(script: string, cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn('/bin/bash', ['-c', script], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, ...OFFLINE_PROVIDERS, ...env },
    });
    let out = '';
    child.stdout.on('data', (b) => {
      out += b;
    });
    child.stderr.on('data', (b) => {
      out += b;
    });
    child.on('close', (code) => resolve({ code, out }));
  });
}

let dir: string;
let failing: TestRepo;
let clean: TestRepo;

beforeAll(() => {
  expect(existsSync(BINARY), 'run npm run build:binary first').toBe(true);
  dir = mkdtempSync(join(tmpdir(), 'svc-ci-'));
  failing = new TestRepo();
  failing.commitFiles({ 'config/deploy.env': `AWS=${fakeCloudKeyId(901)}\n` });
  clean = new TestRepo();
  clean.commitFiles({ 'README.md': 'nothing to see\n', 'docs/example.md': `key ${fakeCloudKeyId(902)}\n` });
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  failing.cleanup();
  clean.cleanup();
});

describe('the single executable', () => {
  it('runs without Node.js on the PATH (only git) and reports exactly what svc scan reports through Node', async () => {
    const gitOnly = join(dir, 'git-only');
    mkdirSync(gitOnly);
    const git = (await run('command -v git', dir, {})).out.trim();
    symlinkSync(git, join(gitOnly, 'git'));
    const viaBinary = await run(`"${BINARY}" scan . --format json`, failing.dir, { PATH: gitOnly });
    expect(viaBinary.code).toBe(1);
    expect((await run('command -v node', dir, { PATH: gitOnly })).code).not.toBe(0);
    const viaNode = await run(
      `"${process.execPath}" "${join(ROOT, 'dist', 'cli', 'main.js')}" scan . --format json`,
      failing.dir,
      {},
    );
    expect(JSON.parse(viaBinary.out)).toEqual(JSON.parse(viaNode.out));
    expect(statSync(BINARY).mode & 0o111).not.toBe(0);
  });

  it('offers the scanner only, and says so in its help', async () => {
    const help = await run(`"${BINARY}" --help`, dir, {});
    expect(help.out).toContain('svc scan [PATH]');
    expect(help.out).not.toContain('svc serve');
    const serve = await run(`"${BINARY}" serve`, dir, {});
    expect(serve.code).toBe(2);
    expect(serve.out).toMatch(/unknown command "serve"/);
  });
});

describe('GitHub: the action script', () => {
  let svc: Awaited<ReturnType<typeof service>>;
  let key: string;
  let tokens: Awaited<ReturnType<typeof runnerTokenEndpoint>>;
  let visibility = 'public';

  beforeAll(async () => {
    svc = await service();
    key = await svc.t.userWithKey('gh@example.test', 'free');
    tokens = await runnerTokenEndpoint((audience) =>
      svc.t.issuerA.sign({ repository: 'acme/app', repository_visibility: visibility }, { audience }),
    );
  });
  afterAll(async () => {
    tokens.server.close();
    await svc.stop();
  });

  const env = (extra: Record<string, string> = {}) => {
    const summary = join(dir, `summary-${Math.random()}.md`);
    writeFileSync(summary, '');
    return {
      summary,
      vars: {
        SVC_PLATFORM: 'a',
        SVC_API_KEY: key,
        SVC_BASE_URL: svc.url,
        SVC_NO_VERIFY: 'true',
        ACTIONS_ID_TOKEN_REQUEST_URL: tokens.url,
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: RUNNER_REQUEST_TOKEN,
        GITHUB_STEP_SUMMARY: summary,
        GITHUB_REPOSITORY: 'acme/app',
        RUNNER_TEMP: dir,
        ...extra,
      },
    };
  };

  it('on a runner without xz, downloads gzip (curl --compressed) and checks the same digest', async () => {
    // Every command of the machine but xz.
    const noXz = join(dir, 'no-xz-bin');
    mkdirSync(noXz, { recursive: true });
    for (const folder of ['/usr/local/bin', '/usr/bin', '/bin']) {
      if (!existsSync(folder)) continue;
      for (const name of readdirSync(folder)) {
        if (/^(xz|unxz|xzcat|lzma|unlzma)$/.test(name) || existsSync(join(noXz, name))) continue;
        symlinkSync(join(folder, name), join(noXz, name));
      }
    }
    const { vars } = env({});
    const r = await run(`bash "${SCRIPT}"`, failing.dir, { ...vars, PATH: noXz });
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/fetched \([\d.]+ MB, gzip\)/);
    expect(r.out).toContain('::error::svc: secrets found in code');
  });

  it('downloads with the identity token, scans, writes the summary and SARIF, and fails the job', async () => {
    const { summary, vars } = env({ SVC_SARIF: join(dir, 'svc.sarif') });
    const r = await run(`bash "${SCRIPT}"`, failing.dir, vars);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toContain('::error::svc: secrets found in code');
    expect(r.out).toMatch(/CI runs left this month/);
    // In xz, as the runner has xz: at most 30 MB on the wire (issue 32), the digest checked after.
    const wire = /fetched \(([\d.]+) MB, xz\)/.exec(r.out);
    expect(wire, r.out).not.toBeNull();
    expect(Number(wire![1])).toBeLessThanOrEqual(30);
    expect(readFileSync(summary, 'utf8')).toMatch(/^## svc secret scan: ❌ failed/);
    expect(JSON.parse(readFileSync(join(dir, 'svc.sarif'), 'utf8')).runs[0].results).toHaveLength(1);
  });

  it('keeps the incremental-scan cache in SVC_CACHE: the next run reads it and gives the same verdict', async () => {
    const cacheFile = join(dir, 'cache-a', 'nested', 'scan.cache');
    const first = await run(`bash "${SCRIPT}"`, failing.dir, env({ SVC_CACHE: cacheFile }).vars);
    expect(first.code, first.out).toBe(1);
    const written = readFileSync(cacheFile, 'latin1');
    expect(written.startsWith('svc-scan-cache 2\n')).toBe(true);
    const second = await run(`bash "${SCRIPT}"`, failing.dir, env({ SVC_CACHE: cacheFile }).vars);
    expect(second.code, second.out).toBe(1);
    expect(second.out).not.toContain('scan cache');
    // A damaged cache is a warning, never a failure of its own.
    writeFileSync(cacheFile, 'garbage');
    const damaged = await run(`bash "${SCRIPT}"`, failing.dir, env({ SVC_CACHE: cacheFile }).vars);
    expect(damaged.code, damaged.out).toBe(1);
    expect(damaged.out).toContain('is damaged; ignoring it and scanning in full');
  });

  it('keys the platform cache by repository and ref, restoring only its own ref or the default branch', () => {
    const gh = (expression: string) => `$\{{ ${expression} }}`; // a GitHub expression
    const action = readFileSync(join(ROOT, 'action.yml'), 'utf8');
    const keys = [...action.matchAll(/key: (.*)/g)].map((m) => m[1]);
    expect(keys.length).toBe(2);
    for (const key of keys)
      expect(key).toMatch(/^svc-scan-v1-\$\{\{ github\.repository_id \}\}-\$\{\{ github\.ref \}\}-/);
    const restore = action
      .split('restore-keys: |\n')[1]!
      .split('\n    - ')[0]!
      .trim()
      .split('\n')
      .map((l) => l.trim());
    expect(restore).toEqual([
      `svc-scan-v1-${gh('github.repository_id')}-${gh('github.ref')}-`,
      `svc-scan-v1-${gh('github.repository_id')}-refs/heads/${gh('github.event.repository.default_branch')}-`,
    ]);
    expect(action).toMatch(/actions\/cache\/restore@v4/);
    expect(action).toMatch(/actions\/cache\/save@v4/);
    expect(action).toContain(
      `SVC_CACHE: ${gh("inputs.cache == 'true' && format('{0}/svc-scan-cache/scan.cache', runner.temp) || ''")}`,
    );
  });

  it('passes the job when secrets are only outside code', async () => {
    const { summary, vars } = env();
    const r = await run(`bash "${SCRIPT}"`, clean.dir, vars);
    expect(r.code, r.out).toBe(0);
    expect(readFileSync(summary, 'utf8')).toMatch(/passed/);
  });

  it('warns about a shallow checkout, with the fix', async () => {
    const shallow = join(dir, 'shallow');
    await run(`git clone -q --depth 1 "file://${failing.dir}" "${shallow}"`, dir, {});
    const r = await run(`bash "${SCRIPT}"`, shallow, env().vars);
    expect(r.out).toContain(
      "::warning::svc: shallow clone: only part of the history is scanned. Use actions/checkout with 'fetch-depth: 0'",
    );
  });

  it('says why for 401 (bad key)', async () => {
    const r = await run(
      `bash "${SCRIPT}"`,
      failing.dir,
      env({ SVC_API_KEY: 'svc_wrongwrongwrongwrongwrongwrongwrong1' }).vars,
    );
    expect(r.code).toBe(2);
    expect(r.out).toContain(
      '::error::svc: the service refused the API key or the identity token (401): invalid API key',
    );
  });

  it('says why for 402 (a private repository on the Free plan)', async () => {
    visibility = 'private';
    try {
      const r = await run(`bash "${SCRIPT}"`, failing.dir, env().vars);
      expect(r.code).toBe(2);
      expect(r.out).toContain('a private repository needs a paid plan (402): acme/app is private');
    } finally {
      visibility = 'public';
    }
  });

  it('falls back to repo= without a token, which the Free plan refuses (400)', async () => {
    const r = await run(`bash "${SCRIPT}"`, failing.dir, env({ ACTIONS_ID_TOKEN_REQUEST_URL: '' }).vars);
    expect(r.out).toContain("add 'permissions: id-token: write'");
    expect(r.out).toContain('the request was refused (400): an identity token is required on the Free plan');
    expect(r.code).toBe(2);
  });

  it('says when to retry for 429 (monthly runs used up)', async () => {
    const limited = await service({ monthlyCiRuns: { free: 0, paid: 0 } });
    try {
      const k = await limited.t.userWithKey('quota@example.test', 'paid');
      const r = await run(
        `bash "${SCRIPT}"`,
        failing.dir,
        env({ SVC_API_KEY: k, SVC_BASE_URL: limited.url, ACTIONS_ID_TOKEN_REQUEST_URL: '' }).vars,
      );
      expect(r.code).toBe(2);
      expect(r.out).toMatch(/too many runs \(429\): monthly CI runs used up.*; retry after \d+ seconds/);
    } finally {
      await limited.stop();
    }
  });

  it('says so for 503 (no executable published)', async () => {
    const bare = await service({ binaryFile: join(dir, 'not-built') });
    try {
      const k = await bare.t.userWithKey('early@example.test', 'paid');
      const r = await run(
        `bash "${SCRIPT}"`,
        failing.dir,
        env({ SVC_API_KEY: k, SVC_BASE_URL: bare.url, ACTIONS_ID_TOKEN_REQUEST_URL: '' }).vars,
      );
      expect(r.code).toBe(2);
      expect(r.out).toContain('the service has no scanner to hand out yet (503)');
    } finally {
      await bare.stop();
    }
  });

  it('never runs a download that does not match its digest', async () => {
    const liar = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-svc-sha256': '0'.repeat(64) });
      res.end('#!/bin/sh\necho pwned > pwned.txt\n');
    });
    liar.listen(0, '127.0.0.1');
    await once(liar, 'listening');
    try {
      const url = `http://127.0.0.1:${(liar.address() as AddressInfo).port}`;
      const r = await run(`bash "${SCRIPT}"`, failing.dir, env({ SVC_BASE_URL: url }).vars);
      expect(r.code).toBe(2);
      expect(r.out).toContain('the download is incomplete or corrupt');
      expect(existsSync(join(failing.dir, 'pwned.txt'))).toBe(false);
    } finally {
      liar.close();
    }
  });
});

describe('GitLab: the template job', () => {
  /** The job's script block, as GitLab runs it. */
  const templateScript = () => {
    const yaml = readFileSync(TEMPLATE, 'utf8');
    const block = yaml.split('  script:\n    - |\n')[1]!.split('\n  artifacts:')[0]!;
    return block
      .split('\n')
      .map((line) => line.replace(/^ {6}/, ''))
      .join('\n');
  };

  it('is generated from integrations/ci-scan.sh (npm run build:integrations)', () => {
    expect(readFileSync(TEMPLATE, 'utf8')).toBe(gitlabTemplate());
    expect(readFileSync(TEMPLATE, 'utf8')).toContain('GIT_DEPTH: "0"');
    expect(readFileSync(TEMPLATE, 'utf8')).toMatch(/id_tokens:\n\s+SVC_ID_TOKEN:\n\s+aud: svc/);
    expect(readFileSync(TEMPLATE, 'utf8')).toContain('secret_detection: gl-secret-detection-report.json');
    expect(readFileSync(TEMPLATE, 'utf8')).toMatch(
      /cache:\n\s+key: svc-scan-v1-\$CI_PROJECT_ID-\$CI_COMMIT_REF_SLUG\n\s+fallback_keys:\n\s+- svc-scan-v1-\$CI_PROJECT_ID-\$CI_DEFAULT_BRANCH\n\s+paths:\n\s+- \.svc-cache\/\n/,
    );
    expect(readFileSync(TEMPLATE, 'utf8')).toContain('SVC_CACHE: .svc-cache/scan.cache');
  });

  it('scans with the job token, writes the merge-request report and the markdown artifact, and fails', async () => {
    const svc = await service();
    try {
      const key = await svc.t.userWithKey('gl@example.test', 'free');
      svc.t.issuerB.setProjectVisibility('group/app', 'public');
      const token = await svc.t.issuerB.sign({ project_path: 'group/app' });
      const work = join(dir, 'gl-work');
      await run(`git clone -q "${failing.dir}" "${work}"`, dir, {});
      const r = await run(templateScript(), work, {
        SVC_PLATFORM: 'b',
        SVC_API_KEY: key,
        SVC_BASE_URL: svc.url,
        SVC_NO_VERIFY: 'true',
        SVC_ID_TOKEN: token,
        CI_PROJECT_PATH: 'group/app',
      });
      expect(r.code, r.out).toBe(1);
      expect(r.out).toContain('svc: error: secrets found in code');
      const report = JSON.parse(readFileSync(join(work, 'gl-secret-detection-report.json'), 'utf8'));
      expect(report.vulnerabilities).toHaveLength(1);
      expect(report.vulnerabilities[0].location.file).toBe('config/deploy.env');
      expect(readFileSync(join(work, 'svc-report.md'), 'utf8')).toMatch(/^## svc secret scan/);
    } finally {
      await svc.stop();
    }
  });

  it('runs as included from the service itself, which names itself: no SVC_BASE_URL needed', async () => {
    const port = await freePort();
    const t = await startTestApp({ binaryFile: BINARY, baseUrl: `http://127.0.0.1:${port}` });
    const server = await t.listen({ port });
    try {
      const key = await t.userWithKey('glserved@example.test', 'paid');
      const served = await (
        await fetch(`${server.url}/integrations/gitlab/svc-secret-scan.gitlab-ci.yml`)
      ).text();
      const defaultUrl = /\n {4}SVC_DEFAULT_BASE_URL: "([^"]+)"\n/.exec(served)?.[1];
      expect(defaultUrl).toBe(server.url);
      const script = served
        .split('  script:\n    - |\n')[1]!
        .split('\n  artifacts:')[0]!
        .replace(/^ {6}/gm, '');
      const r = await run(script, clean.dir, {
        SVC_PLATFORM: 'b',
        SVC_API_KEY: key,
        SVC_DEFAULT_BASE_URL: defaultUrl!,
        SVC_NO_VERIFY: 'true',
        CI_PROJECT_PATH: 'group/app',
      });
      expect(r.code, r.out).toBe(0);
      expect(r.out).not.toContain('no service URL');
    } finally {
      await server.close();
      await t.cleanup();
    }
  });

  it('self-reports codehostb_project= without a token (paid plans)', async () => {
    const svc = await service();
    try {
      const key = await svc.t.userWithKey('glpaid@example.test', 'paid');
      const r = await run(templateScript(), clean.dir, {
        SVC_PLATFORM: 'b',
        SVC_API_KEY: key,
        SVC_BASE_URL: svc.url,
        SVC_NO_VERIFY: 'true',
        CI_PROJECT_PATH: 'group/app',
      });
      expect(r.out).toContain('svc: warning: no identity token');
      expect(r.code, r.out).toBe(0);
    } finally {
      await svc.stop();
    }
  });
});
