import { execFile } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';
import { UsageError } from './io.js';

const run = promisify(execFile);

/** The first line after the shebang: how an installed hook is known to be svc's own. */
export const HOOK_MARK = '# svc: scans the staged changes for secrets before each commit';

/**
 * The pre-commit hook: `svc scan --staged` from PATH, else the svc that installed it. A hook that
 * cannot find svc lets the commit through, saying so: a missing tool must not stop every commit,
 * and `git commit --no-verify` is the way past a finding anyway.
 */
export function preCommitHook(installedBy: readonly string[]): string {
  const fallback = installedBy.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  return [
    '#!/bin/sh',
    `${HOOK_MARK} (written by \`svc hooks install-git\`).`,
    '# A finding in code refuses the commit; skip once with `git commit --no-verify`.',
    'if command -v svc >/dev/null 2>&1; then',
    '  exec svc scan --staged',
    'fi',
    `if [ -x ${installedBy[0] === undefined ? "''" : `'${installedBy[0].replace(/'/g, `'\\''`)}'`} ]; then`,
    `  exec ${fallback} scan --staged`,
    'fi',
    'echo "svc: not found: the staged changes were not scanned for secrets (put svc on PATH)" >&2',
    'exit 0',
    '',
  ].join('\n');
}

/**
 * Writes the repository's pre-commit hook where git reads it (core.hooksPath respected); an existing
 * hook that is not svc's is left alone unless `force`. Returns the hook's path.
 */
export async function installGitHook(
  repo: string,
  force: boolean,
  installedBy: readonly string[],
): Promise<string> {
  let hooksDir: string;
  try {
    const { stdout } = await run('git', ['-C', repo, 'rev-parse', '--git-path', 'hooks'], {
      encoding: 'utf8',
    });
    hooksDir = stdout.trim();
  } catch {
    throw new UsageError(`not a git repository: ${repo}`);
  }
  const path = join(isAbsolute(hooksDir) ? hooksDir : join(repo, hooksDir), 'pre-commit');
  const existing = await readFile(path, 'utf8').catch(() => null);
  if (existing !== null && !existing.includes(HOOK_MARK) && !force) {
    throw new UsageError(
      `${path} exists and is not svc's: add \`svc scan --staged\` to it, or pass --force to replace it`,
    );
  }
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, preCommitHook(installedBy));
  await chmod(path, 0o755);
  return path;
}
