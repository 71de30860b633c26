import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** git with no system or user configuration and no replace refs, as the scanner runs it (git.ts). */
export const PLAIN_GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_NO_REPLACE_OBJECTS: '1',
};

/**
 * Builds real git repositories in temp folders for tests. Author, committer and dates are fixed and
 * advance one minute per commit, so commit ids (and so fingerprints) are the same on every run.
 */
export class TestRepo {
  readonly dir: string;
  private clock = Date.UTC(2024, 0, 15, 9, 0, 0) / 1000;

  constructor(options: { bare?: boolean; branch?: string; objectFormat?: 'sha1' | 'sha256' } = {}) {
    this.dir = mkdtempSync(join(tmpdir(), 'svc-repo-'));
    this.git(
      'init',
      '-q',
      `--initial-branch=${options.branch ?? 'main'}`,
      ...(options.bare ? ['--bare'] : []),
      ...(options.objectFormat ? [`--object-format=${options.objectFormat}`] : []),
    );
  }

  /** Runs git in the repository with the fixed identity and clock; returns trimmed stdout. */
  git(...args: string[]): string {
    const date = `@${this.clock} +0000`;
    return execFileSync('git', ['-C', this.dir, ...args], {
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'Ada Dev',
        GIT_AUTHOR_EMAIL: 'ada@example.test',
        GIT_COMMITTER_NAME: 'Ada Dev',
        GIT_COMMITTER_EMAIL: 'ada@example.test',
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_DATE: date,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
      maxBuffer: 1 << 30,
    }).trim();
  }

  write(path: string, content: string | Buffer): this {
    const full = join(this.dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
    return this;
  }

  remove(path: string): this {
    this.git('rm', '-q', '--', path);
    return this;
  }

  /** Stages everything and commits; returns the new commit id. */
  commit(message = 'change'): string {
    this.clock += 60;
    this.git('add', '-A');
    this.git('commit', '-q', '--allow-empty', '-m', message);
    return this.head();
  }

  head(): string {
    return this.git('rev-parse', 'HEAD');
  }

  /** Writes files and commits them in one step. */
  commitFiles(files: Record<string, string | Buffer>, message = 'change'): string {
    for (const [path, content] of Object.entries(files)) this.write(path, content);
    return this.commit(message);
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
