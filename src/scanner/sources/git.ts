import {
  type ChildProcessByStdio,
  type ChildProcessWithoutNullStreams,
  type SpawnOptions,
  spawn,
} from 'node:child_process';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { ScanError } from '../errors.js';

/**
 * Settings that make git's output the same whatever the user's configuration: no pager, C locale
 * (English error messages we can recognise), no prompts, no optional locks on someone else's
 * repository, and no replace refs (scan the objects as stored).
 */
const GIT_ENV_OVERRIDES: Record<string, string> = {
  LC_ALL: 'C',
  LANGUAGE: 'C',
  GIT_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  GIT_OPTIONAL_LOCKS: '0',
  GIT_NO_REPLACE_OBJECTS: '1',
};

/**
 * git maps pack files into memory in windows of up to 1 GiB and keeps up to 8 GiB mapped, so its
 * resident memory grows with the pack's size (those pages are the pack file's own, shared with every
 * other git reading it: the bench's PSS column counts them once). Bounded windows keep that in check
 * on very large packs, at a price that depends on how a git jumps about the pack: measured on a
 * 92 MB pack, `git cat-file` (every blob, oldest first) took 5.2 s within 32 MB, 3.3 s within 64 MB
 * and 2.7 s within 256 MB (98, 124 and 178 MB resident), and the listing of tree changes 2.5 s, 2.0 s
 * and 1.6 s; the whole scan about 1.35x and 1.1-1.2x as long within 32 and 64 MB. Those were
 * single windows; windows of 32 MB within 96 MB (issue 31) hold an 84 MB pack whole, and on rails'
 * 405 MB pack, read one file's versions after another, took `cat-file` from 179-185 MB resident to
 * 46-55 MB and the diff pass's `git log -p` from about 150 MB to 90 MB, the scan's processes from
 * 362-372 to 284-295 MB summed, its time within the noise of a loaded machine (76 and 61 s against
 * 79 and 68 s). Windows of 8 MB within 64 MB hold as much (104 MB resident for `cat-file` on rails,
 * 99 MB with 32 within 96) for less of the kernel's time: git jumps about the pack, and each new
 * window of 32 MB was mapped and faulted in again (`cat-file` on rails, one file's versions after
 * another, two runs each: 1.43-1.45 s of system time against 0.73-0.76 s, 11.9-12.8 s against
 * 10.9-11.9 s in all; the listing of tree changes 1.06 s against 0.59 s). Every long-running git of
 * a scan takes these.
 */
export const BOUNDED_PACK_MEMORY = ['-c', 'core.packedGitWindowSize=8m', '-c', 'core.packedGitLimit=64m'];

/**
 * Small pack windows for a `git rev-list` of commits: it reads only commits, which a pack keeps together at its
 * start. On git/git (203,352 commits) one `git rev-list --all` was 137 MB resident with the scan's
 * other gits' 32 MB within 96 MB, 75 MB with these, in the same time.
 */
export const COMMIT_WALK_PACK_MEMORY = ['-c', 'core.packedGitWindowSize=4m', '-c', 'core.packedGitLimit=16m'];

/** Whether git reads `text` as one line of its standard input (it splits at LF, drops a CR before it). */
export function isOneInputLine(text: string): boolean {
  return !/[\r\n]/.test(text);
}

export interface GitRunner {
  /** The git executable. */
  binary: string;
  /** The repository (work tree or bare). */
  repo: string;
  /** Aborting it kills every git of the scan (a service's scan past its time bound). */
  signal?: AbortSignal;
  /** git's own options, before its command (`-c name=value`). */
  options?: readonly string[];
  /** Environment for git beyond the scan's own settings (GIT_OBJECT_DIRECTORY: diff-index.ts). */
  env?: Readonly<Record<string, string>>;
  /**
   * The scan's answers to questions asked of git more than once (runGitOnce), shared by every copy
   * of the runner a scan makes: a scan is one repository, and what they ask does not change in it.
   */
  answers?: Map<string, Promise<GitResult>>;
}

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Spawns git in the repository; the caller owns the streams. */
export function spawnGit(git: GitRunner, args: readonly string[]): ChildProcessWithoutNullStreams {
  return spawn(
    git.binary,
    ['-C', git.repo, ...(git.options ?? []), ...args],
    spawnOptions(git, 'pipe'),
  ) as ChildProcessWithoutNullStreams;
}

/**
 * Spawns git with its standard output on `stdout`, a socket the caller reads (output-socket.ts);
 * standard input and error are pipes, as with spawnGit.
 */
export function spawnGitInto(
  git: GitRunner,
  args: readonly string[],
  stdout: Socket,
): ChildProcessByStdio<Writable, null, Readable> {
  return spawn(
    git.binary,
    ['-C', git.repo, ...(git.options ?? []), ...args],
    spawnOptions(git, stdout),
  ) as ChildProcessByStdio<Writable, null, Readable>;
}

function spawnOptions(git: GitRunner, stdout: 'pipe' | Socket): SpawnOptions {
  return {
    env: { ...process.env, ...GIT_ENV_OVERRIDES, ...git.env },
    stdio: ['pipe', stdout, 'pipe'],
    signal: git.signal,
    killSignal: 'SIGKILL',
  };
}

/**
 * Runs a child's output handlers so that one that throws ends the child, and keeps the exception for
 * the caller to reject with. Thrown from a stream's 'data' handler it would be uncaught: the process
 * would die with a stack trace (exit 1, the "failing findings" code) or, under a host that catches
 * uncaught exceptions (a test runner, a service), the scan's promise would never settle.
 */
export class HandlerGuard {
  private failure: { error: unknown } | null = null;

  constructor(private readonly end: () => void) {}

  /** Runs `step` unless an earlier one failed; a throw ends the child. */
  run(step: () => void): void {
    if (this.failure !== null) return;
    try {
      step();
    } catch (error) {
      this.failure = { error };
      this.end();
    }
  }

  /** Whether a step threw; `error` is then what it threw. */
  get failed(): boolean {
    return this.failure !== null;
  }

  get error(): unknown {
    return this.failure?.error;
  }
}

/** Runs a short git command to completion and collects its output. */
export function runGit(git: GitRunner, args: readonly string[], input?: Buffer | string): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawnGit(git, args);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(spawnFailure(git, e)));
    child.on('close', (code) =>
      resolve({ code: code ?? 128, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }),
    );
    child.stdin.on('error', () => {}); // git may exit before reading all input; its exit code tells.
    child.stdin.end(input);
  });
}

/**
 * runGit, asked once a scan (GitRunner.answers): a later call with the same arguments and
 * environment gets the first one's answer. For questions whose answer the scan does not change (its
 * object directory, whether it is shallow): each git costs its fork from the scan's process, 10-25 ms
 * of its main thread on a large heap.
 */
export function runGitOnce(git: GitRunner, args: readonly string[]): Promise<GitResult> {
  if (git.answers === undefined) return runGit(git, args);
  const key = JSON.stringify([git.binary, git.repo, git.options ?? [], git.env ?? {}, args]);
  let answer = git.answers.get(key);
  if (answer === undefined) {
    answer = runGit(git, args);
    git.answers.set(key, answer);
  }
  return answer;
}

/**
 * Runs a git command whose output is lines (latin1), calling `onLine` with each non-empty one as it
 * comes, never holding the whole output; a throw from `onLine` ends git and rejects.
 */
export function gitLines(
  git: GitRunner,
  args: readonly string[],
  onLine: (line: string) => void,
  input?: string,
): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnGit(git, args);
    const guard = new HandlerGuard(() => child.kill('SIGKILL'));
    let carry = '';
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) =>
      guard.run(() => {
        const lines = (carry + chunk.toString('latin1')).split('\n');
        carry = lines.pop()!;
        for (const line of lines) if (line !== '') onLine(line);
      }),
    );
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(spawnFailure(git, e)));
    child.on('close', (code) => {
      if (guard.failed) reject(guard.error);
      else resolve({ code: code ?? 128, stderr: Buffer.concat(err).toString('utf8') });
    });
    child.stdin.on('error', () => {}); // git died early; its exit code says so.
    child.stdin.end(input);
  });
}

/** Like runGit, but a non-zero exit is a fatal error with git's own first message line. */
export async function gitOrThrow(git: GitRunner, args: readonly string[]): Promise<string> {
  const result = await runGit(git, args);
  if (result.code !== 0) throw new ScanError('fatal', `git ${args[0]} failed: ${firstLine(result.stderr)}`);
  return result.stdout.toString('utf8');
}

export function spawnFailure(git: GitRunner, e: NodeJS.ErrnoException): ScanError {
  if (e.code === 'ENOENT') {
    return new ScanError('fatal', `git is not installed or not on PATH (looked for "${git.binary}")`);
  }
  return new ScanError('fatal', `could not run git: ${e.message}`);
}

export function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? 'no message';
  return line.replace(/^(fatal|error): /, '').trim();
}
