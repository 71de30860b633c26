import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { scanRepository } from '../scan.js';
import { CommitFacts, CommitFile, CommitList, FACT_SIZE, ReversedCommits } from './commit-list.js';
import { listCommits, listCommitsToFile } from './history.js';

/** Fake commit ids, 40 hex digits each. */
const ids = (n: number) =>
  Array.from({ length: n }, (_, i) => createHash('sha1').update(`c${i}`).digest('hex'));

/** The same records in a CommitFile, appended in pieces of odd sizes (as git's output comes). */
function inFile(shas: readonly string[]): CommitList {
  const all = Buffer.from(shas.map((s) => `${s}\n`).join(''), 'latin1');
  const file = new CommitFile();
  for (let at = 0, step = 1; at < all.length; at += step, step = (step * 7 + 3) % 9000) {
    file.append(all.subarray(at, at + step));
  }
  return new CommitList(file, 41);
}

/** Open descriptors of this process on a deleted commit list file (or facts file). */
const openCommitFiles = (kind = /svc-commits-.*\(deleted\)$/) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return kind.test(readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      return false;
    }
  }).length;
const openFactFiles = () => openCommitFiles(/svc-commit-facts-.*\(deleted\)$/);

describe('a commit list in a temporary file', () => {
  // 5,000 records of 41 bytes: many 64 KB blocks, records cut by their edges.
  const shas = ids(5000);
  const memory = CommitList.of(shas);
  const file = inFile(shas);
  afterAll(() => file.close());

  it('reads as the same list in memory, forwards, backwards and at random', () => {
    expect(file.length).toBe(5000);
    for (let i = 0; i < shas.length; i++) expect(file.at(i)).toBe(shas[i]);
    for (let i = shas.length - 1; i >= 0; i--) expect(file.at(i)).toBe(shas[i]);
    for (let k = 0, i = 17; k < 3000; k++, i = (i * 31 + 7) % shas.length) expect(file.at(i)).toBe(shas[i]);
    for (const [from, to] of [
      [0, 5000],
      [1590, 1610],
      [4999, 5000],
      [0, 0],
    ] as const) {
      expect(file.slice(from, to).equals(memory.slice(from, to))).toBe(true);
    }
  });

  it('gives the same reversed runs, picks, filters and joins', () => {
    const reversedFile = new ReversedCommits(file);
    const reversedMemory = new ReversedCommits(memory);
    for (let from = 0; from < 5000; from += 1234) {
      const to = Math.min(5000, from + 1500);
      expect(reversedFile.slice(from, to).equals(reversedMemory.slice(from, to))).toBe(true);
    }
    for (let i = 0; i < 5000; i += 499) expect(reversedFile.at(i)).toBe(shas[4999 - i]);
    const places = Int32Array.from([4999, 0, 1600, 1599, 3333]);
    expect(reversedFile.pick(places, 4).from(0).equals(reversedMemory.pick(places, 4).from(0))).toBe(true);
    const odd = (s: string) => s.endsWith('1');
    expect(file.filter(odd).from(0).equals(memory.filter(odd).from(0))).toBe(true);
    expect(file.concat(CommitList.of(['ab'.repeat(20)])).at(5000)).toBe('ab'.repeat(20));
  });

  it("gives the walk's facts of a run of commits, reversed with it; a list made from it has none", () => {
    const records = Buffer.from(
      shas
        .slice(0, 50)
        .map((s) => `${s}\n`)
        .join(''),
      'latin1',
    );
    const lines = new CommitFile();
    lines.append(records);
    const facts = new CommitFacts();
    lines.facts = facts;
    // Fact k: 44 bytes of k (the native walk writes them through the descriptor).
    const written = Buffer.concat(Array.from({ length: 50 }, (_, k) => Buffer.alloc(FACT_SIZE, k)));
    writeSync(facts.descriptor(), written, 0, written.length, 0);
    expect(() => facts.written(49)).toThrow(/one fact a commit/);
    facts.written(50);
    const list = new CommitList(lines, 41);
    const opened = openFactFiles();
    try {
      expect(list.facts(3, 6)).toEqual(written.subarray(3 * FACT_SIZE, 6 * FACT_SIZE));
      // Reversed: place i is the list's 49 - i.
      const reversed = new ReversedCommits(list).facts(0, 3)!;
      expect([...reversed].filter((_, i) => i % FACT_SIZE === 0)).toEqual([49, 48, 47]);
      expect(new ReversedCommits(list).facts(10, 12)).toEqual(
        Buffer.concat([Buffer.alloc(FACT_SIZE, 39), Buffer.alloc(FACT_SIZE, 38)]),
      );
      expect(list.filter(() => true).facts(0, 1)).toBeNull();
      expect(new ReversedCommits(memory).facts(0, 1)).toBeNull();
    } finally {
      list.close();
    }
    expect(openFactFiles()).toBe(opened - 1);
    expect(() => facts.read(0, 1)).toThrow(/closed/);
  });
});

describe("a full scan's commit list", () => {
  let repo: TestRepo;
  beforeAll(() => {
    repo = new TestRepo();
    for (let i = 0; i < 5; i++) repo.commitFiles({ [`f${i}.txt`]: `${i}\n` }, `c${i}`);
  });
  afterAll(() => repo.cleanup());

  it('is git rev-list --all, kept in a file that is gone from the disk and closed after the scan', async () => {
    const before = readdirSync(tmpdir()).filter((name) => name.startsWith('svc-commits-')).length;
    const open = openCommitFiles();
    const openFacts = openFactFiles();
    const { list } = await listCommits({ binary: 'git', repo: repo.dir });
    try {
      expect(Array.from({ length: list.length }, (_, i) => list.at(i)).join('\n')).toBe(
        repo.git('rev-list', '--all'),
      );
      expect(openCommitFiles()).toBe(open + 1);
      // The native walk's facts beside it, one a commit (none where git walked).
      const facts = list.facts(0, list.length);
      expect(openFactFiles()).toBe(openFacts + (facts === null ? 0 : 1));
      if (facts !== null) expect(facts.length).toBe(5 * FACT_SIZE);
      expect(readdirSync(tmpdir()).filter((name) => name.startsWith('svc-commits-')).length).toBe(before);
    } finally {
      list.close();
    }
    expect(openCommitFiles()).toBe(open);
    expect(openFactFiles()).toBe(openFacts);
    await scanRepository({ path: repo.dir });
    expect(openCommitFiles()).toBe(open);
    expect(openFactFiles()).toBe(openFacts);
  });
});

describe('the commit list in segments of a few commits', () => {
  let repo: TestRepo;
  beforeAll(() => {
    // Three branches merged back and forth, with commit dates out of order (a child older than its
    // parent, as clocks skew): a walk by date then meets commits a segment before listed.
    repo = new TestRepo();
    const commitAt = (date: number, message: string) =>
      execFileSync('git', ['-C', repo.dir, 'commit', '-q', '--allow-empty', '-m', message], {
        env: { ...process.env, GIT_AUTHOR_DATE: `@${date} +0000`, GIT_COMMITTER_DATE: `@${date} +0000` },
      });
    repo.commitFiles({ 'a.txt': '0\n' }, 'root');
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (const branch of ['one', 'two', 'three']) repo.git('branch', branch);
    for (let i = 0; i < 40; i++) {
      const branch = ['main', 'one', 'two', 'three'][next() % 4]!;
      repo.git('checkout', '-q', branch);
      if (i % 7 === 6) {
        const other = ['main', 'one', 'two', 'three'].filter((b) => b !== branch)[next() % 3]!;
        repo.git('merge', '-q', '--no-ff', '--no-commit', other);
      }
      commitAt(1_700_000_000 + (next() % 100_000), `c${i}`);
    }
    repo.git('tag', '-a', '-m', 'a tag', 'v1', 'one');
  });
  afterAll(() => repo.cleanup());

  it('lists every commit rev-list --all lists, once, whatever the segment', async () => {
    const all = repo.git('rev-list', '--all').split('\n');
    for (const segment of [1, 2, 3, 5, 8, 1000]) {
      const { code, list } = await listCommitsToFile({ binary: 'git', repo: repo.dir }, segment);
      try {
        expect(code).toBe(0);
        const got = Array.from({ length: list.length }, (_, i) => list.at(i));
        expect(new Set(got).size).toBe(got.length);
        expect([...got].sort()).toEqual([...all].sort());
        // One segment is git's own list, in its order.
        if (segment >= all.length) expect(got).toEqual(all);
      } finally {
        list.close();
      }
    }
  });

  it("ends with git's code and message when git cannot list", async () => {
    const { code, stderr, list } = await listCommitsToFile({ binary: 'git', repo: `${repo.dir}/nowhere` }, 3);
    expect(code).not.toBe(0);
    expect(stderr).not.toBe('');
    expect(list.length).toBe(0);
  });
});
