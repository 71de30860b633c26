import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { descendantsOf } from './descendants.js';

let repo: TestRepo;
beforeAll(() => {
  // main: a - b - m1 - e - m2;  side: b - c - d, merged at m1 (d) and again at m2 (f after d);
  // other: from a, never merged; a tag on it.
  repo = new TestRepo();
  const at = (name: string) => repo.git('rev-parse', name);
  repo.commitFiles({ 'a.txt': 'a\n' }, 'a');
  repo.commitFiles({ 'b.txt': 'b\n' }, 'b');
  repo.git('checkout', '-q', '-b', 'side');
  repo.commitFiles({ 'c.txt': 'c\n' }, 'c');
  repo.commitFiles({ 'd.txt': 'd\n' }, 'd');
  repo.git('checkout', '-q', 'main');
  repo.commitFiles({ 'main.txt': '1\n' }, 'main1');
  repo.git('merge', '-q', '--no-ff', '--no-edit', 'side');
  repo.git('tag', 'm1');
  repo.commitFiles({ 'e.txt': 'e\n' }, 'e');
  repo.git('checkout', '-q', 'side');
  repo.commitFiles({ 'f.txt': 'f\n' }, 'f');
  repo.git('checkout', '-q', 'main');
  repo.git('merge', '-q', '--no-ff', '--no-edit', 'side');
  repo.git('checkout', '-q', '-b', 'other', at('main~2^1~2'));
  repo.commitFiles({ 'o.txt': 'o\n' }, 'other');
  repo.git('tag', 'lone');
  repo.git('checkout', '-q', 'main');
});
afterAll(() => repo.cleanup());

const git = () => ({ binary: 'git', repo: repo.dir });
const every = () => repo.git('rev-list', '--all').split('\n');
/** git's own answer for one root: the root and every commit on a path from it to a ref. */
const gitDescendants = (root: string) =>
  new Set([
    root,
    ...repo.git('rev-list', '--all', '--ancestry-path', `^${root}`).split('\n').filter(Boolean),
  ]);

describe('descendantsOf', () => {
  it('is, for each commit as the only root, exactly what `git rev-list --ancestry-path` gives', async () => {
    for (const root of every()) {
      const near = await descendantsOf(git(), [root]);
      expect(near).not.toBeNull();
      const expected = gitDescendants(root);
      for (const sha of every()) expect([sha, near!.descends(sha)]).toEqual([sha, expected.has(sha)]);
      expect(near!.size).toBe(every().length);
    }
  });

  it('joins several roots, one a descendant of another, and knows no commit it never walked', async () => {
    const roots = [
      repo.git('rev-parse', 'side~1'),
      repo.git('rev-parse', 'm1'),
      repo.git('rev-parse', 'lone'),
    ];
    const near = await descendantsOf(git(), roots);
    const expected = new Set(roots.flatMap((root) => [...gitDescendants(root)]));
    for (const sha of every()) expect(near!.descends(sha)).toBe(expected.has(sha));
    expect(near!.descends('0'.repeat(40))).toBe(false);
    expect(near!.reachable('0'.repeat(40))).toBe(false);
    expect(every().every((sha) => near!.reachable(sha))).toBe(true);
    expect(new Set(every()).size).toBeGreaterThan(expected.size);
  });

  it('is null when git cannot walk the history', async () => {
    expect(await descendantsOf({ binary: 'git', repo: `${repo.dir}/no-such-repo` }, [])).toBeNull();
  });
});
