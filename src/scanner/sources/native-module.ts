import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { getAsset, isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';

/**
 * The native object reader (native/object-reader/src/lib.rs, a Node-API addon built by
 * `npm run build:native`), loaded once per process. Where it cannot be loaded the scanner reads objects
 * through `git cat-file`, and objectReaderUnavailableReason() says why.
 */

/** An open object database (opaque: a Node-API external). */
export type ObjectDatabase = { readonly __objectDatabase: unique symbol };

export interface ObjectReaderModule {
  /**
   * Opens the object directory `objectsDir` (absolute), following its info/alternates, plus the
   * directories in `alternates` (absolute). Throws an Error saying why (e.g. a SHA-256 repository).
   */
  open(objectsDir: string, alternates: string[]): ObjectDatabase;
  /**
   * Reads the objects named by `ids` (20-byte binary ids, concatenated) on a worker thread of its own,
   * writing their answers into `out`, one an id, in order: 1 byte status (0 found, 1 not in the
   * database, 2 left to git: larger than maxObjectSize or than `out` holds, damaged, or of a kind
   * not read here), 1 byte type (1 commit, 2 tree, 3 blob, 4 tag; 0 when unknown), 4 bytes size
   * (little-endian u32; 0 when unknown), then `size` bytes of content when status is 0. The answers
   * stop early when `out` is full: `done` gets the bytes used, and the ids not answered are to be
   * asked again. `out` must not be touched until `done` is called.
   */
  read(
    db: ObjectDatabase,
    ids: Buffer,
    maxObjectSize: number,
    out: Buffer,
    done: (error: Error | null, used?: number) => void,
  ): void;
  /**
   * Lists the tree changes of the commits named by `commitIds` (20-byte binary ids, concatenated) on a
   * worker thread of its own, exactly as `git log --no-walk=unsorted --stdin --raw -r --no-renames
   * --no-abbrev -z -c` (with log.showRoot) lists them: a root commit against the empty tree, a
   * commit with one parent by the recursive tree diff, a merge by the combined diff (only the paths
   * that differ from every parent), in git's order. Gitlinks are listed like any entry.
   *
   * One record per commit, in order, written into `out`:
   * - 1 byte status: 0 listed; 2 left to git (the commit, a parent or a tree it needs is missing,
   *   damaged or of another type, or the listing is one not made here exactly as git makes it);
   * - when 0: u32 LE `parents` (the commit's `parent` lines), u32 LE `count`, then `count` changes,
   *   each: u32 LE path length and the path's bytes (from the root, `/`-separated, as `git log -z`
   *   prints it); u32 LE new mode (0 when the commit lacks the path) and the 20-byte new id (zeros
   *   when lacking); then one old side per parent (exactly one, all zeros, for a root commit), in
   *   parent order: u32 LE mode (0 when that parent lacks the path) and 20-byte id (zeros then).
   *   Modes are git's canonical tree modes (100644, 100755, 120000, 160000).
   *
   * The records stop early when `out` is full: `done` gets the bytes used, and the commits not
   * listed are to be asked again (a commit whose record does not fit even alone gets status 2).
   * `out` (at least 9 bytes) must not be touched until `done` is called.
   */
  listChanges(
    db: ObjectDatabase,
    commitIds: Buffer,
    out: Buffer,
    done: (error: Error | null, used?: number) => void,
    /**
     * The walk's fact of each commit (CommitFacts, 44 bytes each): a commit of one parent or none
     * is then not read again. Null or left out: every commit is read.
     */
    facts?: Buffer | null,
  ): void;
  /**
   * listChanges, but each commit against each of its parents apart, as `git log --raw -r
   * --no-renames -m --sparse -- <paths>` lists them: every change has one old side, its parent's; a
   * commit's changes are its first parent's, then its second's. `paths` (null: no limit) is the
   * limit, literally, each path ended by a line feed.
   */
  listParentChanges(
    db: ObjectDatabase,
    commitIds: Buffer,
    paths: Buffer | null,
    out: Buffer,
    done: (error: Error | null, used?: number) => void,
  ): void;
  /**
   * Walks every commit from `tips` (20-byte ids in the order `git rev-list --all` adds its starting
   * points; tags are peeled, trees and blobs skipped) in `git rev-list`'s order, on a worker thread
   * thread (commit_walk.rs), writing one line a commit into the file `fd` from its start: `<id>\n`,
   * or `<id> <parent>...\n` with `withParents`. `out` (at least 4 bytes) gets the number of commits
   * (u32 LE), `done` the bytes written; a commit it cannot read fails the call.
   */
  walkCommits(
    db: ObjectDatabase,
    tips: Buffer,
    withParents: boolean,
    fd: number,
    out: Buffer,
    done: (error: Error | null, bytes?: number) => void,
    /** Where each commit's fact goes too (commit-list.ts, CommitFacts), from the file's start. */
    factsFd?: number | null,
  ): void;
  /**
   * Writes into `directory` (which must exist), for each pack holding any of them, a pack index of
   * only the objects that `git log -p -M --cc` reads to diff the commits named by `commitIds` (20-byte
   * binary ids, concatenated), beside a symbolic link to its pack, on a worker thread of its own
   * (diff_index.rs). git reads them with GIT_OBJECT_DIRECTORY set to `directory`'s parent and the
   * repository's objects as an alternate. `out` (at least 12 bytes) gets three u32 LE: the objects
   * found, those indexed, and the indexes written; `done` gets 12.
   */
  writeDiffIndex(
    db: ObjectDatabase,
    commitIds: Buffer,
    directory: string,
    out: Buffer,
    done: (error: Error | null, used?: number) => void,
  ): void;
  /** Closes the database's files and drops the trees kept for listings; later reads fail. */
  close(db: ObjectDatabase): void;
  /**
   * Gives the allocator's free memory back to the system (glibc's malloc_trim: the whole process's,
   * not only the reader's), after a phase of the scan has let go of what it held.
   */
  releaseFreeMemory(): void;
  /**
   * Sets glibc's allocator up for a scan's process (one arena, large blocks mapped on their own):
   * for the whole process, from now on. The CLI calls it; the service keeps glibc's defaults.
   */
  keepAllocatorCompact(): void;
}

/** The addon's file name: in dist/native/, and the single executable's asset key. */
export const OBJECT_READER_FILE = 'object-reader-linux-x64.node';

/** What a call of the module is given last: its error, or the number it answers. */
export type Done = (error: Error | null, answer?: number) => void;

/** A call of the module (`call` makes it with its `done`) as a promise of the number it answers. */
export function answered(call: (done: Done) => void): Promise<number> {
  return new Promise((resolve, reject) =>
    call((error, answer) =>
      error === null && answer !== undefined ? resolve(answer) : reject(error ?? new Error('no answer')),
    ),
  );
}

type Loaded = { module: ObjectReaderModule } | { reason: string };
let loaded: Loaded | undefined;

/** The native object reader, or null (git cat-file reads the objects); loaded on the first call. */
export function loadObjectReader(): ObjectReaderModule | null {
  loaded ??= load();
  return 'module' in loaded ? loaded.module : null;
}

/** Why loadObjectReader() gives null (one line), or undefined when it gives the module or was not called. */
export function objectReaderUnavailableReason(): string | undefined {
  return loaded !== undefined && 'reason' in loaded ? loaded.reason : undefined;
}

function load(): Loaded {
  if (process.env.SVC_OBJECT_READER === 'git') return { reason: 'SVC_OBJECT_READER=git' };
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return { reason: `no native object reader for ${process.platform} ${process.arch}` };
  }
  try {
    return { module: isSea() ? fromExecutable() : fromPackage() };
  } catch (error) {
    return { reason: oneLine(error) };
  }
}

/**
 * The single executable carries the addon as an asset; dlopen needs a file, so it is written into a new
 * private folder (0700, a name of mkdtemp's choosing), and the folder is removed as soon as the addon
 * is loaded (its mapping outlives the file): a process killed later leaves nothing behind.
 */
function fromExecutable(): ObjectReaderModule {
  let bytes: ArrayBuffer;
  try {
    bytes = getAsset(OBJECT_READER_FILE);
  } catch {
    throw new Error(`the executable carries no ${OBJECT_READER_FILE}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-'));
  try {
    const file = join(dir, OBJECT_READER_FILE);
    writeFileSync(file, new Uint8Array(bytes), { mode: 0o700, flag: 'wx' });
    return open(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * dist/native/ of this package, three folders above this module's: dist/scanner/sources/ (tsc's
 * output) or src/scanner/sources/ (tsx, vitest), both under the package's root.
 */
function fromPackage(): ObjectReaderModule {
  // Empty in the executable's CommonJS bundle (esbuild), which never comes here: isSea() is true there.
  const url: string | undefined = import.meta.url;
  if (url === undefined) throw new Error("this module's file is unknown (a bundle outside the executable)");
  const file = join(dirname(fileURLToPath(url)), '..', '..', '..', 'dist', 'native', OBJECT_READER_FILE);
  if (!existsSync(file)) throw new Error(`${file} not found (npm run build:native builds it)`);
  return open(file);
}

function open(file: string): ObjectReaderModule {
  const holder: { exports: Partial<ObjectReaderModule> } = { exports: {} };
  process.dlopen(holder, file);
  const { exports } = holder;
  // A stale build of another interface is refused here, not at the first read.
  if (
    ![
      exports.open,
      exports.read,
      exports.listChanges,
      exports.listParentChanges,
      exports.walkCommits,
      exports.writeDiffIndex,
      exports.close,
      exports.releaseFreeMemory,
      exports.keepAllocatorCompact,
    ].every((f) => typeof f === 'function')
  ) {
    throw new Error(
      `${file} does not export open, read, listChanges, listParentChanges, walkCommits, writeDiffIndex, close, releaseFreeMemory and keepAllocatorCompact`,
    );
  }
  return exports as ObjectReaderModule;
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.trim();
}
