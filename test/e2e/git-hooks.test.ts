// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell references in file contents are data
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeCloudKeyId, fakeCodehostToken } from '../helpers/fake-secrets.js';
import { TestRepo } from '../helpers/git-repo.js';
import { CLI } from '../helpers/svc-cli.js';

/**
 * Stopping a secret before it is history (contract section 10), as users run it: the single
 * executable in a bare repository's pre-receive hook behind a real `git push`, the pre-commit
 * framework (Debian's `pre-commit`) installing this repository's `.pre-commit-hooks.yaml`, and the
 * plain git hook `svc hooks install-git` writes.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const BINARY = join(ROOT, 'dist', 'svc-linux-x64');

let work: string;
/** A folder on PATH holding `svc`: the single executable, as a server or a developer installs it. */
let bin: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'svc-git-hooks-'));
  bin = join(work, 'bin');
  mkdirSync(bin);
  copyFileSync(BINARY, join(bin, 'svc'));
  chmodSync(join(bin, 'svc'), 0o755);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** git, as a user runs it: their identity, no system or global configuration. */
function git(cwd: string, ...args: string[]) {
  const r = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      GIT_AUTHOR_NAME: 'Ada Dev',
      GIT_AUTHOR_EMAIL: 'ada@example.test',
      GIT_COMMITTER_NAME: 'Ada Dev',
      GIT_COMMITTER_EMAIL: 'ada@example.test',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      PRE_COMMIT_HOME: join(work, 'pre-commit-home'),
    },
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/**
 * A git server (a bare repository whose pre-receive hook runs the executable) and a developer's clone
 * that has pushed a first commit: one that already holds a key, pushed before the hook was there.
 * Each test has its own: they run in any order.
 */
function server() {
  const bare = new TestRepo({ bare: true });
  const dev = new TestRepo();
  dev.git('remote', 'add', 'origin', bare.dir);
  dev.commitFiles({ 'README.md': 'app\n', 'old/legacy.env': `KEY=${fakeCloudKeyId(800)}\n` });
  dev.git('push', '-q', 'origin', 'main');
  writeFileSync(join(bare.dir, 'hooks', 'pre-receive'), `#!/bin/sh\nexec '${BINARY}' scan --pre-receive\n`, {
    mode: 0o755,
  });
  return {
    dev,
    push: (...args: string[]) => git(dev.dir, 'push', 'origin', ...args),
    head: (ref: string) => git(bare.dir, 'rev-parse', '--verify', '-q', ref).out.trim(),
    cleanup() {
      bare.cleanup();
      dev.cleanup();
    },
  };
}

describe.skipIf(!existsSync(BINARY))(
  'svc scan --pre-receive behind a real git push (the single executable)',
  () => {
    it('refuses a push that adds a secret in code, saying what to do, without the secret; accepts it rewritten', () => {
      const s = server();
      try {
        const secret = fakeCloudKeyId(801);
        s.dev.commitFiles({ 'config/deploy.env': `A=1\nAWS_KEY=${secret}\n` }, 'deploy settings');
        const before = s.head('refs/heads/main');
        const r = s.push('main');
        expect(r.code).not.toBe(0);
        expect(r.out).toMatch(/remote: svc: push refused: the commits it adds hold a secret in code\./);
        expect(r.out).toContain('remote:   AWS access key ID (cloud-access-key-id): AKIA****************');
        expect(r.out).toMatch(
          /remote: {5}config\/deploy\.env:2, commit [0-9a-f]{12} by Ada Dev, pushed to refs\/heads\/main/,
        );
        expect(r.out).toMatch(/Rotate the credential/);
        expect(r.out).toMatch(/Remove it from the commits/);
        expect(r.out).toContain('pre-receive hook declined');
        expect(r.out).not.toContain(secret);
        expect(s.head('refs/heads/main')).toBe(before);
        // Rewritten without it: accepted.
        s.dev.git('reset', '-q', '--hard', 'HEAD~1');
        s.dev.commitFiles(
          { 'config/deploy.env': 'A=1\nAWS_KEY=${AWS_KEY}\n' },
          'deploy settings, by reference',
        );
        const again = s.push('main');
        expect(again.code, again.out).toBe(0);
        expect(s.head('refs/heads/main')).toBe(s.dev.head());
      } finally {
        s.cleanup();
      }
    });

    it('judges a force-push by the commits it adds: a rewrite holding a secret is refused, a clean one accepted', () => {
      const s = server();
      try {
        s.dev.commitFiles({ 'src/app.js': 'run()\n' }, 'app');
        expect(s.push('main').code).toBe(0);
        const token = fakeCodehostToken(802);
        s.dev.write('src/app.js', `const token = "${token}";\nrun()\n`);
        s.dev.git('commit', '-q', '-a', '--amend', '-m', 'app, with a token');
        const refused = s.push('--force', 'main');
        expect(refused.code).not.toBe(0);
        expect(refused.out).toContain('codehost-token');
        expect(refused.out).not.toContain(token);
        s.dev.write('src/app.js', 'const token = process.env.TOKEN;\nrun()\n');
        s.dev.git('commit', '-q', '-a', '--amend', '-m', 'app, token from the environment');
        const accepted = s.push('--force', 'main');
        expect(accepted.code, accepted.out).toBe(0);
      } finally {
        s.cleanup();
      }
    });

    it('judges a push of many branches as one: one secret refuses them all', () => {
      const s = server();
      try {
        const base = s.dev.head();
        for (const [branch, content] of [
          ['feature-a', 'docs\n'],
          ['feature-b', `K=${fakeCloudKeyId(803)}\n`],
          ['feature-c', 'more docs\n'],
        ] as const) {
          s.dev.git('checkout', '-q', '-b', branch, base);
          s.dev.commitFiles({ [`${branch}.env`]: content }, branch);
        }
        const r = s.push('feature-a', 'feature-b', 'feature-c');
        expect(r.code).not.toBe(0);
        expect(r.out).toMatch(
          /feature-b\.env:1, commit [0-9a-f]{12} by Ada Dev, pushed to refs\/heads\/feature-b/,
        );
        for (const b of ['feature-a', 'feature-b', 'feature-c']) expect(s.head(`refs/heads/${b}`)).toBe('');
        // Without the secret's branch the others go in.
        const rest = s.push('feature-a', 'feature-c');
        expect(rest.code, rest.out).toBe(0);
        expect(s.head('refs/heads/feature-c')).not.toBe('');
      } finally {
        s.cleanup();
      }
    });

    it('accepts a deletion, and a push that only moves refs to commits the server has (old secrets included)', () => {
      const s = server();
      try {
        s.dev.git('checkout', '-q', '-b', 'topic');
        s.dev.commitFiles({ 'topic.md': 'x\n' }, 'topic');
        expect(s.push('topic').code).toBe(0);
        const deleted = s.push('--delete', 'topic');
        expect(deleted.code, deleted.out).toBe(0);
        expect(s.head('refs/heads/topic')).toBe('');
        // A tag and a branch at the first commit, which holds old/legacy.env's key: nothing new is added.
        const first = s.dev.git('rev-list', '--max-parents=0', 'HEAD');
        s.dev.git('tag', 'v0', first);
        s.dev.git('branch', 'legacy', first);
        const moved = s.push('v0', 'legacy');
        expect(moved.out).not.toContain('push refused');
        expect(moved.code).toBe(0);
      } finally {
        s.cleanup();
      }
    });

    it('reads .svcignore as the default branch has it before the push: a push cannot silence itself', () => {
      const s = server();
      try {
        s.dev.commitFiles({ 'ci/keys.env': `K=${fakeCloudKeyId(804)}\n` }, 'keys');
        const sha12 = s.dev.head().slice(0, 12);
        const ignore = `cloud-access-key-id:${sha12}:ci/keys.env:1\n`;
        s.dev.commitFiles({ '.svcignore': ignore }, 'ignore it');
        expect(s.push('main').code).not.toBe(0);
        // Its ignore line pushed first, on its own, accepted: then the commits go in.
        s.dev.git('checkout', '-q', '-b', 'ignore-first', 'origin/main');
        s.dev.commitFiles({ '.svcignore': ignore }, 'ignore it first');
        expect(s.push('ignore-first:main').code).toBe(0);
        s.dev.git('checkout', '-q', 'main');
        s.dev.git('merge', '-q', '--no-edit', 'ignore-first'); // the keys commit keeps its id, so its fingerprint
        const r = s.push('main');
        expect(r.out).not.toContain('push refused');
        expect(r.code).toBe(0);
      } finally {
        s.cleanup();
      }
    });
  },
);

describe.skipIf(!existsSync(BINARY))(
  'a commit, through the pre-commit framework and through svc hooks install-git',
  () => {
    const hasPreCommit = spawnSync('pre-commit', ['--version']).status === 0;
    if (!hasPreCommit && process.env.CI)
      throw new Error('pre-commit (Debian package) is missing: .ci/run installs it');

    it.skipIf(!hasPreCommit)(
      "the pre-commit framework, from this repository's .pre-commit-hooks.yaml: a secret refused, a clean commit accepted",
      () => {
        // The hook's repository as pre-commit fetches it: this project's .pre-commit-hooks.yaml, committed.
        const hookRepo = new TestRepo();
        copyFileSync(join(ROOT, '.pre-commit-hooks.yaml'), join(hookRepo.dir, '.pre-commit-hooks.yaml'));
        const rev = hookRepo.commit('hooks');
        const project = new TestRepo();
        try {
          project.commitFiles({
            '.pre-commit-config.yaml': `repos:\n  - repo: ${hookRepo.dir}\n    rev: ${rev}\n    hooks:\n      - id: svc\n`,
          });
          const installed = spawnSync('pre-commit', ['install'], {
            cwd: project.dir,
            encoding: 'utf8',
            env: { ...process.env, PRE_COMMIT_HOME: join(work, 'pre-commit-home') },
          });
          expect(installed.status, installed.stderr).toBe(0);

          const secret = fakeCloudKeyId(811);
          project.write('settings.env', `KEY=${secret}\n`);
          git(project.dir, 'add', '-A');
          const refused = git(project.dir, 'commit', '-m', 'with a key');
          expect(refused.code).not.toBe(0);
          expect(refused.out).toMatch(/svc secret scan \(staged changes\)\.+Failed/);
          expect(refused.out).toContain('cloud-access-key-id:staged:settings.env:1');
          expect(refused.out).not.toContain(secret);

          project.write('settings.env', 'KEY=${KEY}\n');
          git(project.dir, 'add', '-A');
          const accepted = git(project.dir, 'commit', '-m', 'by reference');
          expect(accepted.out).toMatch(/svc secret scan \(staged changes\)\.+Passed/);
          expect(accepted.code).toBe(0);
        } finally {
          hookRepo.cleanup();
          project.cleanup();
        }
      },
    );

    it('svc hooks install-git: a plain git hook; an existing hook is kept unless --force', () => {
      const project = new TestRepo();
      try {
        writeFileSync(join(project.dir, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\necho mine\n', {
          mode: 0o755,
        });
        const svc = (...args: string[]) =>
          spawnSync(process.execPath, [CLI, ...args], { cwd: project.dir, encoding: 'utf8' });
        const kept = svc('hooks', 'install-git');
        expect(kept.status).toBe(2);
        expect(kept.stderr).toMatch(/exists and is not svc's: .*--force/);
        expect(svc('hooks', 'install-git', '--force').status).toBe(0);
        // Installing again over svc's own hook needs no --force.
        expect(svc('hooks', 'install-git').status).toBe(0);

        const secret = fakeCodehostToken(812);
        project.write('app.js', `const token = "${secret}";\n`);
        git(project.dir, 'add', '-A');
        const refused = git(project.dir, 'commit', '-m', 'token');
        expect(refused.code).not.toBe(0);
        expect(refused.out).toContain('codehost-token:staged:app.js:1');
        expect(refused.out).not.toContain(secret);
        project.write('app.js', 'const token = process.env.TOKEN;\n');
        git(project.dir, 'add', '-A');
        expect(git(project.dir, 'commit', '-m', 'env').code).toBe(0);
      } finally {
        project.cleanup();
      }
    });
  },
);
