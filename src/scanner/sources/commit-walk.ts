import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { ScanError } from '../errors.js';
import { type GitRunner, runGit, spawnFailure, spawnGit } from './git.js';

/**
 * The slow, careful way to list a repository's commits, for when `git rev-list --all` dies on a
 * missing commit object (a damaged or partial clone): walk from every ref through one
 * `git cat-file --batch`, which answers `<sha> missing` instead of dying. Commits that cannot be read
 * are returned apart; their ancestors are still reached through any other path to them.
 */
export async function walkCommits(git: GitRunner): Promise<{ commits: string[]; missing: string[] }> {
  const refs = await runGit(git, ['for-each-ref', '--format=%(objectname)']);
  const head = await runGit(git, ['rev-parse', '--verify', '--quiet', 'HEAD']);
  const tips = `${refs.stdout.toString('utf8')}\n${head.code === 0 ? head.stdout.toString('utf8') : ''}`
    .split('\n')
    .map((s) => s.trim())
    .filter((s) => s !== '');

  const reader = new BatchReader(git);
  const seen = new Set<string>();
  const commits: string[] = [];
  const missing: string[] = [];
  let frontier = [...new Set(tips)];
  try {
    while (frontier.length > 0) {
      const next: string[] = [];
      for (const sha of frontier) {
        if (seen.has(sha)) continue;
        seen.add(sha);
        const object = await reader.read(sha);
        if (object === null) {
          missing.push(sha);
        } else if (object.type === 'tag') {
          next.push(...headerValues(object.body, 'object'));
        } else if (object.type === 'commit') {
          commits.push(sha);
          next.push(...headerValues(object.body, 'parent'));
        }
      }
      frontier = next;
    }
  } finally {
    reader.close();
  }
  return { commits, missing };
}

/** The values of `name <value>` lines in a commit or tag header (before the blank line). */
function headerValues(body: Buffer, name: string): string[] {
  const header = body.toString('latin1', 0, Math.max(0, body.indexOf('\n\n')));
  return header
    .split('\n')
    .filter((line) => line.startsWith(`${name} `))
    .map((line) => line.slice(name.length + 1));
}

/** Request/response over `git cat-file --batch`: one object id in, `<id> <type> <size>\n<body>\n` out. */
class BatchReader {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffered: Buffer = Buffer.alloc(0);
  private wake: (() => void) | null = null;
  private failure: Error | null = null;
  private ended = false;

  constructor(git: GitRunner) {
    this.child = spawnGit(git, ['cat-file', '--batch']);
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
      this.notify();
    });
    this.child.stdout.on('end', () => {
      this.ended = true;
      this.notify();
    });
    this.child.stderr.resume();
    this.child.on('error', (e) => {
      this.failure = spawnFailure(git, e);
      this.notify();
    });
  }

  async read(sha: string): Promise<{ type: string; body: Buffer } | null> {
    this.child.stdin.write(`${sha}\n`);
    const header = (await this.take((b) => b.indexOf(0x0a) + 1)).toString('latin1').trim();
    const [, type = '', size = ''] = header.split(' ');
    if (type === 'missing' || size === '') return null;
    const length = Number(size);
    const body = await this.take((b) => (b.length >= length + 1 ? length + 1 : 0));
    return { type, body: body.subarray(0, length) };
  }

  close(): void {
    this.child.stdin.end();
  }

  /** Waits until `size(buffered)` says how many leading bytes form the next item (0: not yet). */
  private async take(size: (b: Buffer) => number): Promise<Buffer> {
    for (;;) {
      if (this.failure !== null) throw this.failure;
      const n = size(this.buffered);
      if (n > 0) {
        const item = this.buffered.subarray(0, n);
        this.buffered = this.buffered.subarray(n);
        return item;
      }
      if (this.ended) throw new ScanError('fatal', 'git cat-file stopped before answering');
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
