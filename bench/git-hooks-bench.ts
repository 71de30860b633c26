/**
 * `npm run bench:git-hooks`: the commit-time scans of contract section 10, timed as a user meets them,
 * with the single executable beside the Node CLI in one run:
 * - `svc scan --staged` of a small change (one file of 20 lines), in a work tree of 40,000 commits
 *   (target: under 300 ms with the executable);
 * - `svc scan --pre-receive` of a push of one new commit to a bare repository of 40,000 commits, as
 *   git runs it (the new objects in the repository, no ref at them yet; target: under 1 s);
 * - a real `git push` of one commit with the hook and without it, for what the push costs in all.
 * Medians of 11 runs. The 40,000-commit history is built once with git fast-import (.bench/hooks-40k).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './measure.js';

const root = join(import.meta.dirname, '..');
const binary = join(root, 'dist', 'svc-linux-x64');
const cli = join(root, 'dist', 'cli', 'main.js');
if (!existsSync(binary) || !existsSync(cli))
  throw new Error('run npm run build && npm run build:binary first');

const COMMITS = 40_000;
const dir = join(root, '.bench', 'hooks-40k');
const work = join(dir, 'work');
const bare = join(dir, 'server.git');
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.test',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.test',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 28 }).trim();

/** 40,000 commits over 400 files (100 lines each, one line changed a commit), through fast-import. */
function buildHistory(): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  git(work, 'init', '-q', '--initial-branch=main');
  const parts: string[] = [];
  const files = new Map<number, string[]>();
  for (let c = 1; c <= COMMITS; c++) {
    const f = c % 400;
    const lines = files.get(f) ?? Array.from({ length: 100 }, (_, i) => `const value${i} = ${i};`);
    lines[c % 100] = `const value${c % 100} = ${c}; // commit ${c}`;
    files.set(f, lines);
    const content = `${lines.join('\n')}\n`;
    parts.push(
      `commit refs/heads/main\ncommitter Bench <bench@example.test> ${1_700_000_000 + c} +0000\n` +
        `data ${`change ${c}`.length}\nchange ${c}\n` +
        `M 100644 inline src/module${f}.js\ndata ${Buffer.byteLength(content)}\n${content}\n`,
    );
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: work, env, input: parts.join('') });
  git(work, 'reset', '-q', '--hard', 'main');
  git(dir, 'clone', '-q', '--bare', work, bare);
}

function time(command: string, args: string[], options: { cwd?: string; input?: string } = {}): number {
  const samples: number[] = [];
  for (let i = 0; i < 11; i++) {
    const started = process.hrtime.bigint();
    const r = spawnSync(command, args, { cwd: options.cwd, env, input: options.input, stdio: 'pipe' });
    if (r.status !== 0 && r.status !== 1)
      throw new Error(`${command} ${args.join(' ')}: exit ${r.status} ${r.stderr}`);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(samples);
}

if (!existsSync(bare) || Number(git(bare, 'rev-list', '--count', 'main')) !== COMMITS) {
  const started = Date.now();
  buildHistory();
  console.log(`built ${COMMITS} commits in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

// A small staged change: one new file of 20 lines, one of them a key.
git(work, 'reset', '-q', '--hard', 'main');
writeFileSync(
  join(work, 'src', 'settings.js'),
  `${Array.from({ length: 19 }, (_, i) => `export const setting${i} = ${i};`).join('\n')}\nexport const key = 'AKIAZ7QRT3XWVB4MN2KP';\n`,
);
git(work, 'add', 'src/settings.js');
const staged = ['scan', '--staged', '--format', 'json'];
const stagedExe = time(binary, staged, { cwd: work });
const stagedCli = time(process.execPath, [cli, ...staged], { cwd: work });

// One new commit in the server's objects, no ref at it: what a pre-receive hook sees.
git(work, 'commit', '-q', '-m', 'settings');
const newCommit = git(work, 'rev-parse', 'HEAD');
const old = git(bare, 'rev-parse', 'main');
git(bare, 'fetch', '-q', work, `main:refs/bench/incoming`);
git(bare, 'update-ref', '-d', 'refs/bench/incoming');
const input = `${old} ${newCommit} refs/heads/main\n`;
const receiveExe = time(binary, ['scan', '--pre-receive'], { cwd: bare, input });
const receiveCli = time(process.execPath, [cli, 'scan', '--pre-receive'], { cwd: bare, input });

// A real push of one clean commit, with the hook and without it.
function pushTime(withHook: boolean): number {
  const samples: number[] = [];
  const hook = join(bare, 'hooks', 'pre-receive');
  if (withHook) writeFileSync(hook, `#!/bin/sh\nexec '${binary}' scan --pre-receive\n`, { mode: 0o755 });
  else rmSync(hook, { force: true });
  for (let i = 0; i < 11; i++) {
    git(work, 'reset', '-q', '--hard', old);
    writeFileSync(join(work, 'src', `clean${i}.js`), `export const n = ${i};\n`);
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '-m', `clean ${i} ${withHook}`);
    const started = process.hrtime.bigint();
    git(work, 'push', '-q', '--force', bare, 'HEAD:main');
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  git(bare, 'update-ref', 'refs/heads/main', old);
  return median(samples);
}
const pushWith = pushTime(true);
const pushWithout = pushTime(false);

const row = (label: string, exe: number, node: number | null, target: string) =>
  console.log(
    `${label.padEnd(58)} ${`${exe.toFixed(0)} ms`.padStart(10)} ${(node === null ? '' : `${node.toFixed(0)} ms`).padStart(12)}   ${target}`,
  );
console.log(
  `\n${'median of 11, 40,000-commit history'.padEnd(58)} ${'executable'.padStart(10)} ${'node CLI'.padStart(12)}   target`,
);
row('svc scan --staged (one new file, 20 lines)', stagedExe, stagedCli, '< 300 ms');
row('svc scan --pre-receive (one new commit)', receiveExe, receiveCli, '< 1000 ms');
row('git push of one commit, pre-receive hook running svc', pushWith, null, '');
row('git push of one commit, no hook', pushWithout, null, '');
