import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { objectReaderForTests } from '../../../test/helpers/object-reader.js';
import type { ObjectDatabase } from './native-module.js';

// The native object reader (native/object-reader) held to `git cat-file --batch`, byte for byte, on
// real repositories: loose objects, packs with long OFS_DELTA and REF_DELTA chains, several packs at
// once, alternates, missing, oversized and damaged objects.

// ---------------------------------------------------------------------------------------------------
// The addon

const { skip, reader } = objectReaderForTests('object-reader.test.ts');

// ---------------------------------------------------------------------------------------------------
// Answers: the addon's and git's, in one shape

const STATUS = { found: 0, missing: 1, leftToGit: 2 } as const;
const TYPE_CODES: Record<string, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };
const TYPE_NAMES = ['unknown', 'commit', 'tree', 'blob', 'tag'];
const EMPTY: Buffer = Buffer.alloc(0);
/** The largest object the tests read unless they say otherwise. */
const MAX = 64 << 20;
/** The answer buffer's size unless a test says otherwise (the scanner's is 4 MiB). */
const OUT_SIZE = 16 << 20;
/** A small answer buffer: most reads fill it and stop early, and are asked again for the rest. */
const SMALL_OUT = 64 << 10;

interface Answer {
  status: number;
  type: number;
  size: number;
  content: Buffer;
}

/** One read() call: how many bytes of `out` its answers used, or the error `done` got. */
function readInto(db: ObjectDatabase, ids: Buffer, maxObjectSize: number, out: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    reader().read(db, ids, maxObjectSize, out, (error, used) => {
      if (error) reject(error);
      else if (used === undefined) reject(new Error('done got neither an error nor a byte count'));
      else resolve(used);
    });
  });
}

/** How one read() call ended: it threw, or `done` got an error or a byte count. */
function readOutcome(
  db: ObjectDatabase,
  ids: Buffer,
  maxObjectSize: number,
  out: Buffer,
): Promise<{ threw: unknown } | { error: Error | null; used?: number }> {
  return new Promise((resolve) => {
    try {
      reader().read(db, ids, maxObjectSize, out, (error, used) => resolve({ error, used }));
    } catch (threw) {
      resolve({ threw });
    }
  });
}

/**
 * The answers in `out`'s first `used` bytes, whole records only (contents copied out, as `out` is
 * written again); throws on a record cut short or more answers than ids asked.
 */
function parseAnswers(out: Buffer, used: number, asked: number): Answer[] {
  if (!Number.isInteger(used) || used < 0 || used > out.length) {
    throw new Error(`done said ${used} bytes used of a ${out.length}-byte buffer`);
  }
  const answers: Answer[] = [];
  let at = 0;
  while (at < used) {
    if (answers.length === asked) throw new Error(`${used - at} bytes after the answers to all ${asked} ids`);
    if (at + 6 > used)
      throw new Error(`answer ${answers.length} starts at byte ${at}, ${used - at} bytes left`);
    const status = out[at]!;
    const type = out[at + 1]!;
    const size = out.readUInt32LE(at + 2);
    at += 6;
    let content = EMPTY;
    if (status === STATUS.found) {
      if (at + size > used) {
        throw new Error(`answer ${answers.length}: ${size} bytes of content, ${used - at} used after it`);
      }
      content = Buffer.from(out.subarray(at, at + size));
      at += size;
    }
    answers.push({ status, type, size, content });
  }
  return answers;
}

/**
 * Reads `ids` through as many read() calls as it takes: each answers the first ids that fit in the
 * `outSize` buffer, and the rest are asked again. The answers, one per id, in order; `calls` gets how
 * many ids each call answered.
 */
async function readAll(
  db: ObjectDatabase,
  ids: string[],
  maxObjectSize = MAX,
  outSize = OUT_SIZE,
  calls: number[] = [],
): Promise<Answer[]> {
  const out = Buffer.alloc(outSize);
  const answers: Answer[] = [];
  while (answers.length < ids.length) {
    const rest = ids.slice(answers.length);
    // Not zeros: bytes the reader did not write are noticed.
    out.fill(0xa5);
    const used = await readInto(db, Buffer.from(rest.join(''), 'hex'), maxObjectSize, out);
    const answered = parseAnswers(out, used, rest.length);
    // The first id is always answered (an object larger than `out` alone is left to git).
    if (answered.length === 0) throw new Error(`a read() of ${rest.length} ids answered none`);
    calls.push(answered.length);
    answers.push(...answered);
  }
  return answers;
}

/** The same environment as TestRepo's: a fixed identity and clock, no system or user configuration. */
const GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Ada Dev',
  GIT_AUTHOR_EMAIL: 'ada@example.test',
  GIT_COMMITTER_NAME: 'Ada Dev',
  GIT_COMMITTER_EMAIL: 'ada@example.test',
  GIT_AUTHOR_DATE: '@1705309200 +0000',
  GIT_COMMITTER_DATE: '@1705309200 +0000',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** Runs git in `dir`; its stdout. */
function git(
  dir: string,
  args: string[],
  options: { input?: string | Buffer; env?: NodeJS.ProcessEnv } = {},
) {
  return execFileSync('git', ['-C', dir, ...args], {
    input: options.input ?? '',
    env: { ...GIT_ENV, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 1 << 30,
  });
}
const gitText = (dir: string, args: string[], env?: NodeJS.ProcessEnv) =>
  git(dir, args, { env }).toString('utf8').trim();

/** Whether git can read the object (`git cat-file -p`). */
function gitReads(dir: string, id: string): boolean {
  try {
    git(dir, ['cat-file', '-p', id]);
    return true;
  } catch {
    return false;
  }
}

/** git's answer for each id, from one `git cat-file --batch`: found (type, size, content) or missing. */
function catFileAll(repo: string, ids: string[], env?: NodeJS.ProcessEnv): Answer[] {
  if (ids.length === 0) return [];
  const out = git(repo, ['cat-file', '--batch'], { input: `${ids.join('\n')}\n`, env });
  const answers: Answer[] = [];
  let at = 0;
  for (const id of ids) {
    const eol = out.indexOf(0x0a, at);
    const [name, type, size] = out.toString('latin1', at, eol).split(' ');
    at = eol + 1;
    if (name !== id) throw new Error(`git cat-file --batch answered ${name} for ${id}`);
    if (type === 'missing') {
      answers.push({ status: STATUS.missing, type: 0, size: 0, content: EMPTY });
      continue;
    }
    const length = Number(size);
    answers.push({
      status: STATUS.found,
      type: TYPE_CODES[type!]!,
      size: length,
      content: out.subarray(at, at + length),
    });
    at += length + 1;
  }
  if (at !== out.length) throw new Error(`git cat-file --batch wrote ${out.length - at} bytes more`);
  return answers;
}

/** Every object id git sees from `repo` (its object directory, alternates included). */
function allObjectIds(repo: string, env?: NodeJS.ProcessEnv): string[] {
  const out = gitText(repo, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname)'], env);
  return out === '' ? [] : out.split('\n');
}

// ---------------------------------------------------------------------------------------------------
// Object directories and packs, looked at directly

/** The ids of the loose objects in an object directory. */
function looseIds(objects: string): string[] {
  return readdirSync(objects)
    .filter((d) => /^[0-9a-f]{2}$/.test(d))
    .flatMap((d) => readdirSync(join(objects, d)).map((f) => d + f));
}

const loosePath = (objects: string, id: string) => join(objects, id.slice(0, 2), id.slice(2));

/** The .idx files of an object directory. */
function indexesIn(objects: string): string[] {
  const dir = join(objects, 'pack');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.idx'))
    .map((f) => join(dir, f));
}

/** An entry's kind, from the type bits of its header in the pack. */
const KINDS = ['?', 'commit', 'tree', 'blob', 'tag', '?', 'OFS_DELTA', 'REF_DELTA'];
const OFS_DELTA = 6;
const REF_DELTA = 7;

interface PackEntry {
  id: string;
  /** The object's type (verify-pack resolves deltas). */
  type: string;
  /** The entry's kind, read from the pack: 1 to 4 a whole object, 6 OFS_DELTA, 7 REF_DELTA. */
  kind: number;
  sizeInPack: number;
  offset: number;
  /** 0 for a whole object; for a delta, how many deltas down from a whole object. */
  depth: number;
  base?: string;
  pack: string;
}

/** A pack's entries: `git verify-pack -v` for ids, offsets, depths and bases; the pack's bytes for kinds. */
function packEntries(idx: string): PackEntry[] {
  const pack = idx.replace(/\.idx$/, '.pack');
  const bytes = readFileSync(pack);
  const out = execFileSync('git', ['verify-pack', '-v', idx], { encoding: 'utf8', maxBuffer: 1 << 30 });
  return out
    .split('\n')
    .filter((line) => /^[0-9a-f]{40} /.test(line))
    .map((line) => {
      const [id, type, , sizeInPack, offset, depth, base] = line.trim().split(/\s+/);
      return {
        id: id!,
        type: type!,
        kind: (bytes[Number(offset)]! >> 4) & 7,
        sizeInPack: Number(sizeInPack),
        offset: Number(offset),
        depth: depth === undefined ? 0 : Number(depth),
        ...(base === undefined ? {} : { base }),
        pack,
      };
    });
}

/** The object directories git reads from `objects`: itself, then its alternates, recursively. */
function objectDirsOf(objects: string, extra: string[] = []): string[] {
  const dirs: string[] = [];
  const queue = [objects, ...extra];
  while (queue.length > 0) {
    const dir = queue.shift()!;
    if (dirs.includes(dir) || !existsSync(dir)) continue;
    dirs.push(dir);
    const file = join(dir, 'info', 'alternates');
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'))) {
      queue.push(line.startsWith('/') ? line : join(dir, line));
    }
  }
  return dirs;
}

/** Where an object is stored (every copy), for failure messages: a loose file, or a pack entry. */
function whereIs(dirs: string[], id: string): string {
  const places: string[] = [];
  for (const dir of dirs) {
    if (existsSync(loosePath(dir, id))) places.push(`loose in ${dir}`);
    for (const idx of indexesIn(dir)) {
      let entries: PackEntry[];
      try {
        entries = packEntries(idx);
      } catch {
        places.push(`${basename(idx)}: verify-pack fails`);
        continue;
      }
      const entry = entries.find((e) => e.id === id);
      if (entry === undefined) continue;
      const chain = entry.base === undefined ? '' : `, depth ${entry.depth}, base ${entry.base}`;
      places.push(
        `${basename(entry.pack)} (in ${dir}) at offset ${entry.offset}, ${entry.sizeInPack} bytes: ` +
          `${KINDS[entry.kind]} (${entry.type})${chain}`,
      );
    }
  }
  return places.length > 0 ? places.join('; ') : 'stored nowhere';
}

// ---------------------------------------------------------------------------------------------------
// Holding the addon to git

interface Fixture {
  /** Where git runs. */
  repo: string;
  /** The object directory handed to open(). */
  objects: string;
  /** open()'s `alternates`. */
  alternates?: string[];
  /** git's environment, e.g. GIT_ALTERNATE_OBJECT_DIRECTORIES to match `alternates`. */
  env?: NodeJS.ProcessEnv;
}

const describeAnswer = (a: Answer) =>
  a.status === STATUS.found
    ? `found ${TYPE_NAMES[a.type] ?? `type ${a.type}`} of ${a.size} bytes`
    : `status ${a.status} (type ${a.type}, size ${a.size})`;

/**
 * What differs between the addon's answer and the one wanted: `want.status` found means the same type,
 * size and bytes as git; missing means type and size 0; left to git means a type and size each 0 or git's.
 */
function difference(got: Answer, want: Answer): string | undefined {
  if (got.status !== want.status) return `got ${describeAnswer(got)}, want ${describeAnswer(want)}`;
  if (want.status === STATUS.found) {
    if (got.type !== want.type || got.size !== want.size) {
      return `got ${describeAnswer(got)}, want ${describeAnswer(want)}`;
    }
    if (!got.content.equals(want.content)) {
      let i = 0;
      while (got.content[i] === want.content[i]) i++;
      return `same type and size (${got.size}), content differs from byte ${i}`;
    }
    return undefined;
  }
  if (want.status === STATUS.missing) {
    return got.type === 0 && got.size === 0 ? undefined : `missing, but type ${got.type}, size ${got.size}`;
  }
  if (got.type !== 0 && got.type !== want.type)
    return `left to git with type ${got.type}, git's is ${want.type}`;
  if (got.size !== 0 && got.size !== want.size)
    return `left to git with size ${got.size}, git's is ${want.size}`;
  return undefined;
}

interface Check {
  /** The ids to read (default: every object git sees). */
  ids?: string[];
  maxObjectSize?: number;
  /** Ids whose answer must be "left to git" (status 2) instead of git's. */
  leftToGit?: Iterable<string>;
  /** git's answers, taken beforehand (a damaged repository's git cannot give them). */
  expected?: Map<string, Answer>;
}

/**
 * Opens `fixture.objects` and reads `ids` through the addon: in three parts, then one id alone (into
 * a 16 MiB answer buffer), then every id twice over in reverse order into a 64 KiB buffer, which most
 * calls fill and the rest is asked again. Every answer must be git's (`git cat-file --batch`), except
 * the ones in `leftToGit` and objects larger than maxObjectSize or than the buffer holds (6 bytes of
 * header and the content), which are left to git. Returns the ids and the first answer for each.
 */
/**
 * The two ways a pack index is read (pack.rs): mapped (any index up to 48 MB, so every fixture's by
 * default), and by positioned reads (larger ones; SVC_PACK_INDEX_MAP_LIMIT=0 reads every one so).
 */
const INDEX_READINGS: [label: string, mapLimit: string | undefined][] = [
  ['index mapped', undefined],
  ['index read', '0'],
];

/** Opens the fixture's database with SVC_PACK_INDEX_MAP_LIMIT set as given (read at open only). */
function openWithIndexMapLimit(fixture: Fixture, mapLimit: string | undefined): ObjectDatabase {
  const before = process.env.SVC_PACK_INDEX_MAP_LIMIT;
  if (mapLimit === undefined) delete process.env.SVC_PACK_INDEX_MAP_LIMIT;
  else process.env.SVC_PACK_INDEX_MAP_LIMIT = mapLimit;
  try {
    return reader().open(fixture.objects, fixture.alternates ?? []);
  } finally {
    if (before === undefined) delete process.env.SVC_PACK_INDEX_MAP_LIMIT;
    else process.env.SVC_PACK_INDEX_MAP_LIMIT = before;
  }
}

async function checkAgainstGit(fixture: Fixture, check: Check = {}) {
  const ids = check.ids ?? allObjectIds(fixture.repo, fixture.env);
  expect(ids.length).toBeGreaterThan(0);
  const unique = [...new Set(ids)];
  const expected =
    check.expected ??
    new Map(catFileAll(fixture.repo, unique, fixture.env).map((answer, i) => [unique[i]!, answer]));
  const leftToGit = new Set(check.leftToGit);
  const max = check.maxObjectSize ?? MAX;
  const want = (id: string, outSize: number): Answer => {
    const answer = expected.get(id);
    if (answer === undefined) throw new Error(`no expected answer for ${id}`);
    const tooLarge = answer.status === STATUS.found && answer.size > Math.min(max, outSize - 6);
    return leftToGit.has(id) || tooLarge ? { ...answer, status: STATUS.leftToGit, content: EMPTY } : answer;
  };

  const third = Math.ceil(ids.length / 3);
  const reversed = [...ids].reverse();
  const passes: [label: string, ids: string[], outSize: number][] = [
    ...[0, 1, 2].map((k): [string, string[], number] => [
      `part ${k + 1} of 3`,
      ids.slice(k * third, (k + 1) * third),
      OUT_SIZE,
    ]),
    ['one id alone', [ids[Math.floor(ids.length / 2)]!], OUT_SIZE],
    ['every id twice, reversed, 64 KiB buffer', reversed.flatMap((id) => [id, id]), SMALL_OUT],
  ];
  const got = new Map<string, Answer>();
  const problems: string[] = [];
  for (const [indexes, mapLimit] of INDEX_READINGS) {
    const db = openWithIndexMapLimit(fixture, mapLimit);
    try {
      for (const [label, passIds, outSize] of passes.filter(([, p]) => p.length > 0)) {
        const calls: number[] = [];
        const answers = await readAll(db, passIds, max, outSize, calls);
        answers.forEach((answer, i) => {
          const id = passIds[i]!;
          if (!got.has(id)) got.set(id, answer);
          const problem = difference(answer, want(id, outSize));
          if (problem !== undefined)
            problems.push(`${indexes}, ${label} (${calls.length} calls), #${i}: ${id}: ${problem}`);
        });
      }
    } finally {
      reader().close(db);
    }
  }
  if (problems.length > 0) {
    // Where the first few are stored, so a failure says which pack layout it comes from.
    const dirs = objectDirsOf(fixture.objects, fixture.alternates);
    const ids = [...new Set(problems.map((p) => /[0-9a-f]{40}/.exec(p)![0]))].slice(0, 5);
    const more = problems.length - 20;
    problems.splice(20, more, ...(more > 0 ? [`and ${more} more`] : []));
    problems.push(...ids.map((id) => `${id} is ${whereIs(dirs, id)}`));
  }
  expect(problems).toEqual([]);
  return { ids, got };
}

// ---------------------------------------------------------------------------------------------------
// Fixtures

const cleanups: (() => void)[] = [];
let scratchRoot: string | undefined;
/** A new empty folder, removed after the tests. */
function scratch(name: string): string {
  if (scratchRoot === undefined) {
    const root = mkdtempSync(join(tmpdir(), 'svc-object-reader-'));
    scratchRoot = root;
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  }
  return mkdtempSync(join(scratchRoot, `${name}-`));
}
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

/** Builds once, on first use: tests run in a random order and several share a fixture. */
function once<T>(build: () => T): () => T {
  let value: { built: T } | undefined;
  return () => {
    value ??= { built: build() };
    return value.built;
  };
}

function newRepo(): TestRepo {
  const repo = new TestRepo();
  cleanups.push(() => repo.cleanup());
  repo.git('config', 'gc.auto', '0');
  return repo;
}
const objectsOf = (repo: TestRepo) => join(repo.dir, '.git', 'objects');
const worktree = (repo: TestRepo): Fixture => ({ repo: repo.dir, objects: objectsOf(repo) });

/** Deterministic noise (xorshift32): bytes that do not compress. */
function noise(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

/** Version `v` of a 300-line file: lines 1..v are edited, so each version is one line off the last. */
function versionOf(name: string, v: number): string {
  let text = '';
  for (let line = 1; line <= 300; line++) text += `${name} line ${line}${line <= v ? ' edited' : ''}\n`;
  return text;
}

/** Commits `from..to` versions of a few files, each version one line off the last. */
function commitVersions(repo: TestRepo, names: string[], from: number, to: number): void {
  for (let v = from; v <= to; v++) {
    repo.commitFiles(Object.fromEntries(names.map((n) => [`${n}.txt`, versionOf(n, v)])), `version ${v}`);
  }
}

const EMPTY_BLOB = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const NOTES = Array.from({ length: 800 }, (_, i) => `line ${i} of the notes, long enough to compress\n`).join(
  '',
);
const ALL_BYTES = Buffer.concat([
  Buffer.from(Array.from({ length: 1024 }, (_, i) => i & 0xff)),
  noise(4096, 7),
]);

/** Loose objects only: an empty tree, an empty blob, binary bytes, nested trees, an annotated tag. */
function buildLoose(): TestRepo {
  const repo = newRepo();
  repo.commit('root: the empty tree');
  repo.commitFiles(
    { 'README.md': 'hello\n', 'empty.txt': '', 'bin/all-bytes.dat': ALL_BYTES, 'notes.txt': NOTES },
    'files',
  );
  repo.commitFiles({
    'README.md': 'hello again\n',
    'src/deep/a/b/c.txt': 'deep\n',
    'tail.txt': 'no newline',
  });
  repo.git('tag', '-a', 'v1', '-m', 'release v1');
  return repo;
}
const blobAt = (repo: TestRepo, path: string) => repo.git('rev-parse', `HEAD:${path}`);

/** 60 versions of three files, repacked into one pack with OFS_DELTA chains up to 50 deep. */
const deltaHistory = once(() => {
  const repo = newRepo();
  commitVersions(repo, ['a', 'b', 'c'], 1, 60);
  repo.git('repack', '-adfq', '--depth=50', '--window=50');
  return repo;
});

/** A bare copy of a repository (its own pack, no alternates). */
function bareCopy(from: string, name: string): string {
  const dir = scratch(name);
  execFileSync('git', ['clone', '-q', '--no-local', '--bare', from, dir], { env: GIT_ENV });
  return dir;
}

/** A `git clone --shared` of `from` (its objects/info/alternates names from's), with one commit of `files`. */
function sharedClone(from: string, name: string, files: Record<string, string>): string {
  const dir = scratch(name);
  execFileSync('git', ['clone', '-q', '--shared', from, dir], { env: GIT_ENV });
  git(dir, ['config', 'gc.auto', '0']);
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', `commit in ${name}`]);
  return dir;
}

/** A shared clone of the delta history, and a shared clone of that clone, each with commits of its own. */
const sharedClones = once(() => {
  const first = sharedClone(deltaHistory().dir, 'shared', {
    'a.txt': versionOf('a', 61),
    'clone.txt': 'only in the first clone\n',
  });
  const second = sharedClone(first, 'shared-of-shared', {
    'b.txt': versionOf('b', 62),
    'clone2.txt': 'only in the second clone\n',
  });
  return { first, second };
});

/** The entries whose delta chain goes through `id` (not `id` itself). */
function dependentsOf(entries: PackEntry[], id: string): Set<string> {
  const found = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const e of entries) {
      if (e.base !== undefined && (e.base === id || found.has(e.base)) && !found.has(e.id)) {
        found.add(e.id);
        grew = true;
      }
    }
  }
  return found;
}

/** Flips a few bytes in the middle of a pack entry's deflate data (past its headers and the zlib header, before the Adler-32). */
function damageEntry(entry: PackEntry): void {
  chmodSync(entry.pack, 0o644);
  const fd = openSync(entry.pack, 'r+');
  try {
    const head = Buffer.alloc(32);
    readSync(fd, head, 0, head.length, entry.offset);
    let header = 1;
    while (head[header - 1]! & 0x80) header++;
    if (entry.kind === OFS_DELTA) {
      header++;
      while (head[header - 1]! & 0x80) header++;
    } else if (entry.kind === REF_DELTA) {
      header += 20;
    }
    const deflate = entry.sizeInPack - header - 2 - 4;
    if (deflate < 2) throw new Error(`entry ${entry.id} has only ${deflate} bytes of deflate data`);
    const at = entry.offset + header + 2 + Math.floor(deflate / 2) - 1;
    const bytes = Buffer.alloc(2);
    readSync(fd, bytes, 0, 2, at);
    writeSync(fd, Buffer.from([bytes[0]! ^ 0xff, bytes[1]! ^ 0xff]), 0, 2, at);
  } finally {
    closeSync(fd);
  }
}

// ---------------------------------------------------------------------------------------------------

describe.skipIf(skip)('the native object reader answers as git cat-file --batch does', () => {
  it('1. loose objects only: an empty tree and blob, binary bytes, nested trees, an annotated tag', async () => {
    const repo = buildLoose();
    const objects = objectsOf(repo);
    expect(indexesIn(objects)).toEqual([]);
    const { ids, got } = await checkAgainstGit(worktree(repo));
    expect(ids).toHaveLength(looseIds(objects).length);
    expect(ids).toEqual(expect.arrayContaining([EMPTY_BLOB, EMPTY_TREE, blobAt(repo, 'bin/all-bytes.dat')]));
    expect(got.get(EMPTY_BLOB)).toEqual({ status: 0, type: 3, size: 0, content: EMPTY });
    expect(got.get(EMPTY_TREE)).toEqual({ status: 0, type: 2, size: 0, content: EMPTY });
    expect(got.get(blobAt(repo, 'bin/all-bytes.dat'))!.content.equals(ALL_BYTES)).toBe(true);
    expect(new Set([...got.values()].map((a) => a.type))).toEqual(new Set([1, 2, 3, 4]));
  });

  it('2. one pack with long OFS_DELTA chains (60 versions, repack --depth=50 --window=50)', async () => {
    const repo = deltaHistory();
    const objects = objectsOf(repo);
    const indexes = indexesIn(objects);
    expect(indexes).toHaveLength(1);
    expect(looseIds(objects)).toEqual([]);
    const entries = packEntries(indexes[0]!);
    const deltas = entries.filter((e) => e.kind === OFS_DELTA);
    expect(deltas.length).toBeGreaterThanOrEqual(150);
    expect(Math.max(...deltas.map((e) => e.depth))).toBeGreaterThanOrEqual(20);
    expect(entries.filter((e) => e.kind === REF_DELTA)).toEqual([]);
    const { ids } = await checkAgainstGit(worktree(repo));
    expect(ids).toHaveLength(entries.length);
  });

  it('3. one pack with REF_DELTA chains (repack.useDeltaBaseOffset=false)', async () => {
    // pack.useDeltaBaseOffset is not a setting git knows: `git -c pack.useDeltaBaseOffset=false repack`
    // still writes OFS_DELTA entries. repack.useDeltaBaseOffset=false does write REF_DELTA; the entries'
    // type bits, read from the pack, say so (verify-pack does not tell the two apart).
    const dir = bareCopy(deltaHistory().dir, 'ref-delta');
    git(dir, ['-c', 'repack.useDeltaBaseOffset=false', 'repack', '-adfq', '--depth=50', '--window=50']);
    const objects = join(dir, 'objects');
    const indexes = indexesIn(objects);
    expect(indexes).toHaveLength(1);
    const entries = packEntries(indexes[0]!);
    const deltas = entries.filter((e) => e.kind === REF_DELTA);
    expect(deltas.length).toBeGreaterThanOrEqual(150);
    expect(Math.max(...deltas.map((e) => e.depth))).toBeGreaterThanOrEqual(20);
    expect(entries.filter((e) => e.kind === OFS_DELTA)).toEqual([]);
    await checkAgainstGit({ repo: dir, objects });
  });

  it('4. two packs (repack -d without -a), loose objects and a multi-pack-index at once', async () => {
    const repo = newRepo();
    commitVersions(repo, ['a', 'b'], 1, 8);
    repo.git('repack', '-dq');
    commitVersions(repo, ['a', 'b'], 9, 16);
    repo.git('repack', '-dq');
    commitVersions(repo, ['a', 'b'], 17, 19);
    repo.git('multi-pack-index', 'write');
    const objects = objectsOf(repo);
    const indexes = indexesIn(objects);
    expect(indexes).toHaveLength(2);
    for (const idx of indexes) expect(packEntries(idx).some((e) => e.kind === OFS_DELTA)).toBe(true);
    const loose = looseIds(objects);
    expect(loose.length).toBeGreaterThanOrEqual(12);
    const { ids } = await checkAgainstGit(worktree(repo));
    expect(ids).toEqual(expect.arrayContaining(loose));
  });

  it('4b. a thin pack completed by index-pack --fix-thin: REF_DELTA bases after their deltas, objects in two packs', async () => {
    const source = deltaHistory();
    const dir = scratch('thin');
    execFileSync('git', ['init', '-q', '--bare', dir], { env: GIT_ENV });
    const old = source.git('rev-parse', 'HEAD~20');
    const head = source.head();
    // The older history as a pack of REF_DELTA entries (no --delta-base-offset), as fetch stores one.
    const full = git(source.dir, ['pack-objects', '--revs', '--stdout', '-q'], { input: `${old}\n` });
    git(dir, ['index-pack', '--stdin'], { input: full });
    const thin = git(
      source.dir,
      ['pack-objects', '--revs', '--thin', '--delta-base-offset', '--stdout', '-q'],
      {
        input: `${head}\n^${old}\n`,
      },
    );
    git(dir, ['index-pack', '--stdin', '--fix-thin'], { input: thin });
    const objects = join(dir, 'objects');
    const indexes = indexesIn(objects);
    expect(indexes).toHaveLength(2);
    const packs = indexes.map(packEntries);
    const completed = packs.find((entries) => entries.some((e) => e.kind === OFS_DELTA))!;
    const offsets = new Map(completed.map((e) => [e.id, e.offset]));
    const baseAfter = completed.filter(
      (e) => e.kind === REF_DELTA && (offsets.get(e.base!) ?? -1) > e.offset,
    );
    expect(baseAfter.length).toBeGreaterThan(0);
    const inBoth = packs[0]!.filter((e) => packs[1]!.some((f) => f.id === e.id));
    expect(inBoth.length).toBeGreaterThan(0);
    await checkAgainstGit({ repo: dir, objects });
  });

  it('4c. a pack whose .idx keeps its offsets in the 64-bit table (index-pack --index-version=2,0x40)', async () => {
    const dir = bareCopy(deltaHistory().dir, 'large-offsets');
    git(dir, ['repack', '-adfq', '--depth=50', '--window=50']);
    const objects = join(dir, 'objects');
    const [idx] = indexesIn(objects);
    const pack = idx!.replace(/\.idx$/, '.pack');
    const rewritten = join(dirname(idx!), 'rewritten.idx');
    git(dir, ['index-pack', '--index-version=2,0x40', '-o', rewritten, pack]);
    rmSync(idx!, { force: true });
    renameSync(rewritten, idx!);
    for (const f of readdirSync(dirname(idx!)).filter((f) => /\.(bitmap|rev)$/.test(f))) {
      rmSync(join(dirname(idx!), f));
    }
    // Version 2: fanout, names, CRCs, then 4-byte offsets, those with the top bit set pointing into the
    // table of 8-byte offsets.
    const bytes = readFileSync(idx!);
    const count = bytes.readUInt32BE(8 + 255 * 4);
    const small = 8 + 1024 + 24 * count;
    let large = 0;
    for (let i = 0; i < count; i++) if (bytes.readUInt32BE(small + 4 * i) & 0x80000000) large++;
    expect(large).toBeGreaterThan(count / 2);
    await checkAgainstGit({ repo: dir, objects });
  });

  it('4d. a pack of 6,000 blobs: each found, and each id with its last bit flipped missing (the index in buckets)', async () => {
    // 6,000 ids make 512 buckets (pack.rs: their first 9 bits, about 8 ids a bucket, some empty,
    // some past twice that): a flipped last bit stays in its id's bucket.
    const dir = scratch('many-objects');
    git(dir, ['init', '-q', '--bare']);
    const blobs = Array.from({ length: 6000 }, (_, i) => `blob ${i}\n`);
    git(dir, ['fast-import', '--quiet'], {
      input: blobs.map((content) => `blob\ndata ${Buffer.byteLength(content)}\n${content}\n`).join(''),
    });
    const objects = join(dir, 'objects');
    expect(indexesIn(objects)).toHaveLength(1);
    expect(looseIds(objects)).toEqual([]);
    const real = allObjectIds(dir);
    expect(real).toHaveLength(6000);
    const flipped = real.map((id) => id.slice(0, 39) + (Number.parseInt(id.slice(39), 16) ^ 1).toString(16));
    const absent = new Set(flipped.filter((id) => !real.includes(id)));
    expect(absent.size).toBeGreaterThan(5900);
    const ids = real.flatMap((id, i) => [id, flipped[i]!]);
    const { got } = await checkAgainstGit({ repo: dir, objects }, { ids });
    expect(real.every((id) => got.get(id)?.status === STATUS.found)).toBe(true);
    expect([...absent].every((id) => got.get(id)?.status === STATUS.missing)).toBe(true);
  });

  it('4f. 80 of 200 ids made to share their first bits: a bucket past 64 ids is halved first, and found exactly', async () => {
    // pack.rs buckets ids by their first bits, about 8 ids a bucket: 200 objects make 16 buckets
    // (4 bits). Blobs are chosen so that 80 ids start with the same 4 bits, past the 64 compared
    // at once, and the other 120 spread over the other buckets.
    const blobId = (content: string) =>
      createHash('sha1')
        .update(`blob ${Buffer.byteLength(content)}\0${content}`)
        .digest('hex');
    const crowded: string[] = [];
    const others: string[] = [];
    for (let i = 0; crowded.length < 80 || others.length < 120; i++) {
      const content = `crafted ${i}\n`;
      const first = blobId(content)[0];
      if (first === '0' && crowded.length < 80) crowded.push(content);
      else if (first !== '0' && others.length < 120) others.push(content);
    }
    const dir = scratch('crowded-bucket');
    git(dir, ['init', '-q', '--bare']);
    git(dir, ['fast-import', '--quiet'], {
      input: [...crowded, ...others]
        .map((content) => `blob\ndata ${Buffer.byteLength(content)}\n${content}\n`)
        .join(''),
    });
    const objects = join(dir, 'objects');
    expect(indexesIn(objects)).toHaveLength(1);
    const real = allObjectIds(dir);
    expect(real).toHaveLength(200);
    expect(real.filter((id) => id.startsWith('0'))).toHaveLength(80);
    // Ids in the crowded bucket that are not there: each bit of the last byte flipped.
    const absent = real
      .filter((id) => id.startsWith('0'))
      .flatMap((id) =>
        [1, 16, 128].map(
          (bit) => id.slice(0, 38) + (Number.parseInt(id.slice(38), 16) ^ bit).toString(16).padStart(2, '0'),
        ),
      )
      .filter((id) => !real.includes(id));
    expect(absent.length).toBeGreaterThan(200);
    const { got } = await checkAgainstGit({ repo: dir, objects }, { ids: [...real, ...absent] });
    expect(real.every((id) => got.get(id)?.status === STATUS.found)).toBe(true);
    expect(absent.every((id) => got.get(id)?.status === STATUS.missing)).toBe(true);
  });

  it('4g. a pack index whose ids are out of order is not read: its objects are left to git', async () => {
    const repo = deltaHistory();
    const dir = bareCopy(repo.dir, 'unsorted-index');
    git(dir, ['repack', '-adq']);
    const objects = join(dir, 'objects');
    const ids = allObjectIds(dir);
    const expected = new Map(catFileAll(dir, ids).map((answer, i) => [ids[i]!, answer]));
    // The first two ids of the index's table swapped (git's lookups would miss them too).
    const [index] = indexesIn(objects);
    chmodSync(index!, 0o644);
    const bytes = readFileSync(index!);
    const table = 8 + 256 * 4;
    const first = Buffer.from(bytes.subarray(table, table + 20));
    bytes.copy(bytes, table, table + 20, table + 40);
    first.copy(bytes, table + 20);
    writeFileSync(index!, bytes);
    await checkAgainstGit({ repo: dir, objects }, { ids, expected, leftToGit: ids });
  });

  it('4e. maps a pack index once however many databases are open on it, and unmaps it with the last', () => {
    const repo = deltaHistory();
    const objects = objectsOf(repo);
    const [index] = indexesIn(objects);
    const mappings = () =>
      readFileSync('/proc/self/maps', 'utf8')
        .split('\n')
        .filter((line) => line.endsWith(index!)).length;
    expect(mappings()).toBe(0);
    const first = openWithIndexMapLimit({ repo: repo.dir, objects }, undefined);
    const second = openWithIndexMapLimit({ repo: repo.dir, objects }, undefined);
    expect(mappings()).toBe(1);
    reader().close(first);
    expect(mappings()).toBe(1);
    reader().close(second);
    expect(mappings()).toBe(0);
    const unmapped = openWithIndexMapLimit({ repo: repo.dir, objects }, '0');
    expect(mappings()).toBe(0);
    reader().close(unmapped);
  });

  it('5. alternates: a shared clone with commits of its own, and a shared clone of that clone', async () => {
    const base = deltaHistory();
    const { first, second } = sharedClones();
    const baseIds = allObjectIds(base.dir);
    const firstObjects = join(first, '.git', 'objects');
    const secondObjects = join(second, '.git', 'objects');
    const alternateOf = (objects: string) =>
      realpathSync(readFileSync(join(objects, 'info', 'alternates'), 'utf8').trim());
    expect(alternateOf(firstObjects)).toBe(realpathSync(objectsOf(base)));
    expect(alternateOf(secondObjects)).toBe(realpathSync(firstObjects));
    const firstOwn = looseIds(firstObjects);
    const secondOwn = looseIds(secondObjects);
    expect(firstOwn.length).toBeGreaterThanOrEqual(4);
    expect(secondOwn.length).toBeGreaterThanOrEqual(4);
    expect([...indexesIn(firstObjects), ...indexesIn(secondObjects)]).toEqual([]);

    const one = await checkAgainstGit({ repo: first, objects: firstObjects });
    expect(one.ids).toEqual(expect.arrayContaining([...baseIds, ...firstOwn]));
    expect(one.ids).toHaveLength(baseIds.length + firstOwn.length);
    const two = await checkAgainstGit({ repo: second, objects: secondObjects });
    expect(two.ids).toEqual(expect.arrayContaining([...baseIds, ...firstOwn, ...secondOwn]));
    expect(two.ids).toHaveLength(baseIds.length + firstOwn.length + secondOwn.length);
  });

  it('5b. a relative path in info/alternates is taken from the object directory, as git takes it', async () => {
    const base = deltaHistory();
    const dir = sharedClone(base.dir, 'relative', { 'c.txt': versionOf('c', 63) });
    const objects = join(dir, '.git', 'objects');
    writeFileSync(join(objects, 'info', 'alternates'), `${relative(objects, objectsOf(base))}\n`);
    const { ids } = await checkAgainstGit({ repo: dir, objects });
    expect(ids).toEqual(expect.arrayContaining(allObjectIds(base.dir)));
  });

  it('6. alternates passed to open() instead of info/alternates', async () => {
    const base = deltaHistory();
    const dir = sharedClone(base.dir, 'argument', { 'a.txt': versionOf('a', 64), 'arg.txt': 'argument\n' });
    const objects = join(dir, '.git', 'objects');
    rmSync(join(objects, 'info', 'alternates'));
    const own = looseIds(objects);
    const baseIds = allObjectIds(base.dir);
    const withBase = { GIT_ALTERNATE_OBJECT_DIRECTORIES: objectsOf(base) };
    const all = allObjectIds(dir, withBase);
    expect(all).toHaveLength(own.length + baseIds.length);

    await checkAgainstGit({ repo: dir, objects, alternates: [objectsOf(base)], env: withBase });
    // Without it the base's objects are not in the database (git without it says "missing" too).
    const alone = await checkAgainstGit({ repo: dir, objects }, { ids: all });
    expect(baseIds.map((id) => alone.got.get(id)!.status)).toEqual(baseIds.map(() => STATUS.missing));
    // An alternate passed to open() has its own info/alternates followed, as git follows those of
    // GIT_ALTERNATE_OBJECT_DIRECTORIES: through the shared clone to the base.
    const { first } = sharedClones();
    const throughFirst = { GIT_ALTERNATE_OBJECT_DIRECTORIES: join(first, '.git', 'objects') };
    const { ids } = await checkAgainstGit({
      repo: dir,
      objects,
      alternates: [join(first, '.git', 'objects')],
      env: throughFirst,
    });
    expect(ids).toEqual(expect.arrayContaining(all));
  });

  it('7. missing objects: never written, deleted loose, and ids next to packed ones', async () => {
    const repo = buildLoose();
    const objects = objectsOf(repo);
    const deleted = blobAt(repo, 'notes.txt');
    const present = allObjectIds(repo.dir);
    rmSync(loosePath(objects, deleted));
    const never = ['0123456789abcdef0123456789abcdef01234567', '0'.repeat(40), 'f'.repeat(40)];
    // The missing ones between found ones, so a miss cannot shift the answers after it.
    const ids = present.flatMap((id, i) => (i % 3 === 0 ? [id, never[(i / 3) % never.length]!] : [id]));
    const { got } = await checkAgainstGit(worktree(repo), { ids });
    for (const id of [deleted, ...never])
      expect(got.get(id)).toEqual({ status: 1, type: 0, size: 0, content: EMPTY });

    // In a pack: ids that differ from packed ones in their last byte, or sort before or after them all.
    const packed = deltaHistory();
    const real = allObjectIds(packed.dir);
    const near = real
      .slice(0, 20)
      .map((id) => id.slice(0, 38) + (Number.parseInt(id.slice(38), 16) ^ 1).toString(16).padStart(2, '0'));
    const absent = near.filter((id) => !real.includes(id));
    expect(absent.length).toBeGreaterThan(15);
    const mixed = real.flatMap((id, i) => (i < absent.length ? [absent[i]!, id] : [id]));
    const packedCheck = await checkAgainstGit(worktree(packed), { ids: [...never, ...mixed] });
    for (const id of [...never, ...absent]) expect(packedCheck.got.get(id)!.status).toBe(STATUS.missing);
  });

  it('8. a 3 MB blob, whole and as a delta: left to git above maxObjectSize or the answer buffer, else read', async () => {
    const repo = newRepo();
    const big = noise(3 << 20, 1);
    repo.commitFiles({ 'big.bin': big, 'small.txt': 'small\n' }, 'big');
    const changed = Buffer.from(big);
    for (const at of [10, 1 << 20, (3 << 20) - 10]) changed[at] = changed[at]! ^ 0x55;
    repo.commitFiles({ 'big.bin': changed }, 'big, changed');
    const bigIds = [repo.git('rev-parse', 'HEAD~1:big.bin'), repo.git('rev-parse', 'HEAD:big.bin')];

    const readBoth = async (stage: string) => {
      await checkAgainstGit(worktree(repo), { maxObjectSize: 1 << 20, leftToGit: bigIds });
      const { got } = await checkAgainstGit(worktree(repo), { maxObjectSize: 8 << 20 });
      expect(got.get(bigIds[0]!)!.content.equals(big), stage).toBe(true);
      expect(got.get(bigIds[1]!)!.content.equals(changed), stage).toBe(true);
      const size = 3 << 20;
      const statuses = async (ids: string[], max: number, outSize = OUT_SIZE, calls?: number[]) =>
        (await readAll(db, ids, max, outSize, calls)).map((a) => a.status);
      const db = reader().open(objectsOf(repo), []);
      try {
        // maxObjectSize is the largest size read: an object of exactly that size is read.
        expect(await statuses(bigIds, size), stage).toEqual([0, 0]);
        expect(await statuses(bigIds, size - 1), stage).toEqual([2, 2]);
        // An object is read when its answer (6 bytes and the content) fits in the buffer, alone.
        expect(await statuses(bigIds.slice(0, 1), MAX, size + 6), stage).toEqual([0]);
        expect(await statuses(bigIds.slice(0, 1), MAX, size + 5), stage).toEqual([2]);
        // The second does not fit after the first: the call stops, and the next one reads it.
        const calls: number[] = [];
        expect(await statuses(bigIds, MAX, size + 6 + 1000, calls), stage).toEqual([0, 0]);
        expect(calls, stage).toEqual([1, 1]);
      } finally {
        reader().close(db);
      }
    };
    await readBoth('loose');
    repo.git('repack', '-adfq');
    const entries = packEntries(indexesIn(objectsOf(repo))[0]!);
    const kinds = bigIds.map((id) => entries.find((e) => e.id === id)!.kind);
    expect(kinds.sort()).toEqual([3, OFS_DELTA]);
    await readBoth('packed');
  });

  it('9. a damaged pack: the damaged entries and the deltas on them are left to git, the rest read', async () => {
    const dir = bareCopy(deltaHistory().dir, 'damaged');
    git(dir, ['repack', '-adfq', '--depth=50', '--window=50']);
    const objects = join(dir, 'objects');
    const entries = packEntries(indexesIn(objects)[0]!);
    const ids = entries.map((e) => e.id);
    const expected = new Map(catFileAll(dir, ids).map((answer, i) => [ids[i]!, answer]));
    // A whole blob at the root of a delta chain, a delta in the middle of another chain, and a commit.
    const root = entries.find((e) => e.kind === 3 && dependentsOf(entries, e.id).size >= 10)!;
    const rootChain = dependentsOf(entries, root.id);
    const middle = entries.find(
      (e) =>
        e.kind === OFS_DELTA &&
        e.depth >= 3 &&
        e.id !== root.id &&
        !rootChain.has(e.id) &&
        dependentsOf(entries, e.id).size >= 3 &&
        e.sizeInPack >= 12,
    )!;
    const commit = entries.find((e) => e.kind === 1)!;
    expect([root, middle, commit].every((e) => e !== undefined)).toBe(true);
    for (const entry of [root, middle, commit]) damageEntry(entry);
    for (const entry of [root, middle, commit]) expect(gitReads(dir, entry.id), entry.id).toBe(false);
    const leftToGit = new Set([
      root.id,
      middle.id,
      commit.id,
      ...rootChain,
      ...dependentsOf(entries, middle.id),
    ]);
    expect(leftToGit.size).toBeLessThan(ids.length / 2);

    await checkAgainstGit({ repo: dir, objects }, { ids, expected, leftToGit });
  });

  it('9b. truncated loose objects (half the file, and an empty file) are left to git', async () => {
    const repo = buildLoose();
    const objects = objectsOf(repo);
    const ids = allObjectIds(repo.dir);
    const expected = new Map(catFileAll(repo.dir, ids).map((answer, i) => [ids[i]!, answer]));
    const half = blobAt(repo, 'notes.txt');
    const empty = blobAt(repo, 'bin/all-bytes.dat');
    for (const [id, length] of [
      [half, Math.floor(statSync(loosePath(objects, half)).size / 2)],
      [empty, 0],
    ] as const) {
      chmodSync(loosePath(objects, id), 0o644);
      truncateSync(loosePath(objects, id), length);
      expect(gitReads(repo.dir, id), id).toBe(false);
    }
    await checkAgainstGit(worktree(repo), { ids, expected, leftToGit: [half, empty] });
  });

  it('10. open() refuses what is not a SHA-1 object directory, saying why; read() after close() fails', async () => {
    const repo = buildLoose();
    const notObjects = scratch('not-objects');
    writeFileSync(join(notObjects, 'file.txt'), 'not git\n');
    for (const dir of [notObjects, repo.dir, join(notObjects, 'nowhere'), join(notObjects, 'file.txt')]) {
      expect(() => reader().open(dir, []), dir).toThrow(/object/i);
    }

    const sha256 = scratch('sha256');
    execFileSync('git', ['init', '-q', '--object-format=sha256', sha256], { env: GIT_ENV });
    writeFileSync(join(sha256, 'a.txt'), 'a\n');
    git(sha256, ['add', '-A']);
    git(sha256, ['commit', '-q', '-m', 'sha256']);
    let refused: unknown;
    try {
      reader().open(join(sha256, '.git', 'objects'), []);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(/sha-?256/i);

    const db = reader().open(objectsOf(repo), []);
    expect(await readAll(db, [EMPTY_BLOB])).toEqual([{ status: 0, type: 3, size: 0, content: EMPTY }]);
    reader().close(db);
    const afterClose = await readOutcome(db, Buffer.from(EMPTY_BLOB, 'hex'), MAX, Buffer.alloc(1024));
    expect(afterClose).toEqual({ error: expect.any(Error), used: undefined });
  });

  it('reads no ids as an empty answer, and refuses ids that are not whole 20-byte names', async () => {
    const repo = buildLoose();
    const db = reader().open(objectsOf(repo), []);
    try {
      expect(await readInto(db, EMPTY, MAX, Buffer.alloc(1024))).toBe(0);
      // Thrown or given to done, either way an Error and no answers.
      const outcome = await readOutcome(db, Buffer.alloc(30), MAX, Buffer.alloc(1024));
      expect('threw' in outcome ? outcome.threw : outcome.error).toBeInstanceOf(Error);
      expect('used' in outcome ? outcome.used : undefined).toBeUndefined();
    } finally {
      reader().close(db);
    }
  });

  it('~2,700 objects through 8 read() calls at once on two databases (worker threads)', async () => {
    const repo = newRepo();
    let stream = '';
    for (let c = 1; c <= 100; c++) {
      const message = `commit ${c}\n`;
      stream += `commit refs/heads/main\ncommitter Ada Dev <ada@example.test> ${1705309200 + c * 60} +0000\n`;
      stream += `data ${message.length}\n${message}`;
      for (let f = 0; f < 20; f++) {
        const body = `file ${f}, version ${c}\n${versionOf(`f${f}`, c % 40).slice(0, 2000)}`;
        stream += `M 100644 inline d${f % 5}/f${f}.txt\ndata ${Buffer.byteLength(body)}\n${body}\n`;
      }
    }
    git(repo.dir, ['fast-import', '--quiet'], { input: stream });
    const ids = allObjectIds(repo.dir);
    expect(ids.length).toBeGreaterThanOrEqual(2500);
    const expected = new Map(catFileAll(repo.dir, ids).map((answer, i) => [ids[i]!, answer]));
    const dbs = [reader().open(objectsOf(repo), []), reader().open(objectsOf(repo), [])];
    try {
      const rotated = (k: number) => {
        const at = Math.floor((k * ids.length) / 8);
        return [...ids.slice(at), ...ids.slice(0, at)];
      };
      // 1 MiB answer buffers: each reader asks again several times, while the others' reads are under way.
      const calls = [0, 1, 2, 3, 4, 5, 6, 7].map((): number[] => []);
      const results = await Promise.all(
        calls.map((answered, k) => readAll(dbs[k % 2]!, rotated(k), MAX, 1 << 20, answered)),
      );
      for (const answered of calls) expect(answered.length).toBeGreaterThanOrEqual(3);
      const problems = results.flatMap((answers, k) => {
        const order = rotated(k);
        return answers.flatMap((answer, i) => {
          const want = expected.get(order[i]!)!;
          const problem = difference(answer, want);
          return problem === undefined ? [] : [`call ${k}, #${i}: ${order[i]}: ${problem}`];
        });
      });
      expect(problems).toEqual([]);
    } finally {
      for (const db of dbs) reader().close(db);
    }
  });
});
