import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { PREFILTER } from '../detect/prefilter.js';
import { type CommitInfo, DiffStreamParser } from './diff-parser.js';
import { runGit } from './git.js';

/** Every candidate line the parser reports, as `sha path:line text`. */
function parse(output: Buffer, chunkSizes: () => number): string[] {
  const seen: string[] = [];
  const parser = new DiffStreamParser(
    {
      onCandidateLine: (c: CommitInfo, path: string, line: number, text: string) =>
        seen.push(`${c.sha.slice(0, 7)} ${path}:${line} ${text}`),
    },
    new RegExp(PREFILTER.source, PREFILTER.flags),
  );
  for (let at = 0; at < output.length; ) {
    const size = Math.max(1, chunkSizes());
    parser.push(output.subarray(at, at + size));
    at += size;
  }
  parser.end();
  return seen;
}

let repo: TestRepo;
let output: Buffer;

beforeAll(async () => {
  repo = new TestRepo();
  repo.commitFiles({ 'a.env': 'one\ntoken = 1\nthree\n', 'ü b.txt': 'secret here\r\n' });
  repo.commitFiles({ 'a.env': 'one\ntoken = 2\nthree\npassword line\n' });
  repo.git('checkout', '-q', '-b', 'side');
  repo.commitFiles({ 'a.env': 'one\ntoken = 3\nthree\npassword line\n' });
  repo.git('checkout', '-q', 'main');
  repo.commitFiles({ 'a.env': 'one\ntoken = 4\nthree\npassword line\n' });
  try {
    repo.git('merge', '-q', 'side');
  } catch {
    // conflict, resolved below
  }
  repo.write('a.env', 'one\ntoken = 5 evil\nthree\npassword line\n');
  repo.commit('merge');
  const git = { binary: 'git', repo: repo.dir };
  const log = await runGit(git, [
    'log',
    '--all',
    '--format=%x01%H%x1f%an%x1f%aI',
    '-p',
    '-U0',
    '--cc',
    '--src-prefix=a/',
    '--dst-prefix=b/',
  ]);
  output = log.stdout;
});
afterAll(() => repo.cleanup());

describe('DiffStreamParser', () => {
  it('reports added lines with their paths and true line numbers', () => {
    const lines = parse(output, () => output.length).map((l) => l.slice(8));
    expect(lines.sort()).toEqual(
      [
        'a.env:2 token = 1',
        'a.env:2 token = 2',
        'a.env:4 password line',
        'a.env:2 token = 3',
        'a.env:2 token = 4',
        'a.env:2 token = 5 evil',
        'ü b.txt:1 secret here',
      ].sort(),
    );
  });

  it('gives the same result whatever the chunk boundaries', () => {
    const whole = parse(output, () => output.length);
    expect(parse(output, () => 1)).toEqual(whole);
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return 1 + (seed % 97);
    };
    expect(parse(output, random)).toEqual(whole);
  });
});
