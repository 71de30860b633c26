import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { type GitRunner, isOneInputLine } from './git.js';
import { type OpenedDatabase, openObjectDatabase } from './object-database.js';

/**
 * The diff pass's own pack indexes (native diff_index.rs). git maps a pack's whole index to look
 * objects up, and a diff pass of a few thousand commits touches nearly all of it: at a million
 * commits (5.6 million objects) each `git log -p` held the 157 MB index resident, two of them the
 * scan's peak. So before the pass, an index of just the objects its diffs read is written for each
 * pack into a temporary object directory, beside a link to the pack; git reads that directory
 * (GIT_OBJECT_DIRECTORY) with the repository's own objects as its alternate, where it finds
 * anything else (loose objects, or one the indexes missed: the same answer, at the old memory).
 * Nothing of a blob's content is written: the indexes hold object ids and offsets only.
 *
 * Writing them costs a walk of the pass's commits on a cold cache (0.5 s for 2,000 commits of
 * 200,000 synthetic ones, 0.5 s for rails' 517), and where the packs' indexes are small the pass
 * is no faster for them: the same 0.8 s of diffs on the synthetic history, 3.1 s on rails. So they
 * are written only where the repository's indexes together reach DIFF_INDEX_FROM_BYTES.
 */

/**
 * Pack indexes smaller than this together are left for the diff pass's gits to map: two gits
 * mapping all of rails' 35 MB (the largest of the histories measured below it) kept its scan at
 * 251 MiB summed, against 248 with the indexes written; a million synthetic commits' 157 MB is where
 * they were needed.
 */
export const DIFF_INDEX_FROM_BYTES = 40 << 20;

/** What the diff pass's gits are run with, and how much of the history the indexes hold. */
export interface DiffIndex {
  git: GitRunner;
  /** Objects the diffs read, those in the indexes written, and the indexes (one a pack). */
  objects: number;
  indexed: number;
  packs: number;
}

/**
 * Runs `diffPass` with a GitRunner reading the indexes of the objects that diffing `commits`
 * reads, then removes them; with `git` as it is where the objects are not read natively (no native
 * reader, a layout it does not take), where none is packed, where the indexes cannot be written, or
 * where the repository's own indexes are smaller than `fromBytes` together.
 */
export async function withDiffIndex<T>(
  git: GitRunner,
  commits: readonly string[],
  diffPass: (git: GitRunner, index: DiffIndex | null) => Promise<T>,
  fromBytes = DIFF_INDEX_FROM_BYTES,
): Promise<T> {
  const ids = commits.filter((sha) => SHA1.test(sha));
  const opened = ids.length === 0 ? null : await openObjectDatabase(git, 'blobs');
  // The alternates file takes one path a line, unquoted unless it starts with a quote.
  if (
    opened === null ||
    !isOneInputLine(opened.objectsDir) ||
    opened.objectsDir.startsWith('"') ||
    (await packIndexBytes(opened.objectsDir)) < fromBytes
  ) {
    if (opened !== null) opened.reader.close(opened.db);
    return diffPass(git, null);
  }
  let objects: string | undefined;
  let index: DiffIndex | null = null;
  try {
    objects = await mkdtemp(join(tmpdir(), 'svc-diff-objects-'));
    index = await writeIndexes(git, opened, ids, objects);
  } catch {
    index = null; // no temporary directory to write in: git reads the repository's own indexes
  } finally {
    opened.reader.close(opened.db);
  }
  try {
    return await diffPass(index?.git ?? git, index);
  } finally {
    if (objects !== undefined) await rm(objects, { recursive: true, force: true });
  }
}

const SHA1 = /^[0-9a-f]{40}$/;

/**
 * The size of the pack indexes git maps to read `objectsDir`: its own and its alternates' (one level,
 * as git follows them for a diff). A directory that cannot be read counts nothing.
 */
async function packIndexBytes(objectsDir: string): Promise<number> {
  const alternates = await readFile(join(objectsDir, 'info', 'alternates'), 'latin1').catch(() => '');
  const dirs = [
    objectsDir,
    ...alternates
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => (isAbsolute(line) ? line : join(objectsDir, line))),
  ];
  let bytes = 0;
  for (const dir of dirs) {
    const pack = join(dir, 'pack');
    const names = await readdir(pack).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.endsWith('.idx'))) {
      bytes += await stat(join(pack, name)).then(
        (s) => s.size,
        () => 0,
      );
    }
  }
  return bytes;
}

/** Writes the object directory `objects` for diffing `ids`; null when no object of theirs is packed. */
async function writeIndexes(
  git: GitRunner,
  opened: OpenedDatabase,
  ids: readonly string[],
  objects: string,
): Promise<DiffIndex | null> {
  await mkdir(join(objects, 'pack'));
  await mkdir(join(objects, 'info'));
  await writeFile(join(objects, 'info', 'alternates'), `${opened.objectsDir}\n`);
  const out = Buffer.alloc(12);
  await new Promise<void>((resolve, reject) => {
    opened.reader.writeDiffIndex(
      opened.db,
      Buffer.from(ids.join(''), 'hex'),
      join(objects, 'pack'),
      out,
      (error) => (error === null ? resolve() : reject(error)),
    );
  });
  const packs = out.readUInt32LE(8);
  if (packs === 0) return null;
  return {
    git: {
      ...git,
      // A multi-pack index of the repository's would be searched before any pack's index, ours too.
      options: [...(git.options ?? []), '-c', 'core.multiPackIndex=false'],
      env: { ...git.env, GIT_OBJECT_DIRECTORY: objects },
    },
    objects: out.readUInt32LE(0),
    indexed: out.readUInt32LE(4),
    packs,
  };
}
