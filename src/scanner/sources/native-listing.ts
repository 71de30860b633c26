import type { CommitSequence } from './commit-list.js';
import { answered } from './native-module.js';
import type { OpenedDatabase } from './object-database.js';
import { changeOf, type TreeChange } from './tree-change.js';

/** Commits a listChanges call is given; it lists as many as its buffer holds. */
const COMMITS_PER_CALL = 256;
/** What a call writes its records into, one a call under way. */
const RECORD_BUFFER_SIZE = 1 << 20;
/**
 * Calls under way at once: the one whose records are being handed on and two ahead of it. While the
 * main thread hands on one call's records (about a quarter of the listing's time), the others list:
 * with one ahead, 200,000 synthetic commits (a listing of large trees that the whole scan waits
 * for) left a core idle meanwhile. Two ahead: 8.46 to 7.73 s (means of six alternated pairs, five
 * faster), three ahead no faster again; rails and git/git, whose reading is what they wait for, the
 * same within the noise, and their summed memory too (245 and 276 MiB). Each call runs on a thread of
 * the object reader's own (buffer_call.rs), so the reads are not queued behind the listings.
 */
const CALLS_UNDER_WAY = 3;
const LISTED = 0;

/** Called with each commit listed, as listTreeChanges' OnCommit. */
type OnListed = (sha: string, changes: TreeChange[], parents: number) => void;

/**
 * Which listing: `combined` (listChanges: `git log --raw -c`), or `per-parent` (listParentChanges:
 * `-m`, each parent apart, limited to `paths` when given, as git's literal pathspecs limit it).
 */
export type NativeListing = { mode: 'combined' } | { mode: 'per-parent'; paths?: readonly string[] };

/**
 * Lists every commit's tree changes with the native object reader (its listChanges makes what
 * `git log --raw -c` makes), in order, two calls ahead of the one whose records are handed on. A
 * commit the reader leaves to git (a missing or damaged object on its way) is listed by
 * `listWithGit` before the next is handed on. `waitIfPaced` holds the listing back to its reader.
 * A per-parent listing hands on each commit once, with every parent's changes (one old side each).
 */
export async function listChangesNatively(
  opened: OpenedDatabase,
  commits: CommitSequence,
  onCommit: OnListed,
  listWithGit: (place: number) => Promise<void>,
  waitIfPaced: () => Promise<void>,
  signal?: AbortSignal,
  listing: NativeListing = { mode: 'combined' },
): Promise<void> {
  const perParent = listing.mode === 'per-parent';
  const paths =
    listing.mode === 'per-parent' && listing.paths !== undefined
      ? Buffer.from(listing.paths.map((p) => `${p}\n`).join(''), 'latin1')
      : null;
  let nextToAsk = 0;
  const ask = (from: number, to: number, buffer: Buffer): Call => ({
    from,
    to,
    buffer,
    used: answered((done) =>
      perParent
        ? opened.reader.listParentChanges(opened.db, binaryIds(commits, from, to), paths, buffer, done)
        : opened.reader.listChanges(
            opened.db,
            binaryIds(commits, from, to),
            buffer,
            done,
            commits.facts?.(from, to) ?? null,
          ),
    ),
  });
  const askNext = (buffer: Buffer): Call | null => {
    if (nextToAsk >= commits.length) return null;
    const from = nextToAsk;
    nextToAsk = Math.min(commits.length, from + COMMITS_PER_CALL);
    return ask(from, nextToAsk, buffer);
  };
  const ahead: Call[] = [];
  for (let k = 0; k < CALLS_UNDER_WAY; k++) {
    const call = askNext(Buffer.allocUnsafeSlow(RECORD_BUFFER_SIZE));
    if (call !== null) ahead.push(call);
  }
  let current: Call | null = ahead.shift() ?? null;
  try {
    while (current !== null) {
      signal?.throwIfAborted();
      const used = await current.used;
      if (used === 0) throw new Error('the object reader listed no commit');
      const buffer = current.buffer;
      let place = current.from;
      let at = 0;
      while (at < used) {
        const status = buffer[at++]!;
        if (status !== LISTED) {
          await listWithGit(place++);
          continue;
        }
        const record = readRecord(buffer, at, perParent);
        at = record.end;
        // A per-parent listing is of merges alone, as git's `--merges`.
        if (!perParent || record.parents > 1) onCommit(commits.at(place), record.changes, record.parents);
        place++;
      }
      if (place < current.to) {
        // The buffer filled up: the rest of the call's commits are asked again, before those ahead.
        current = ask(place, current.to, buffer);
      } else {
        const next = askNext(buffer);
        if (next !== null) ahead.push(next);
        current = ahead.shift() ?? null;
      }
      await waitIfPaced();
    }
  } finally {
    // A call still under way when the listing failed: its end is of no interest.
    current?.used.catch(() => {});
    for (const call of ahead) call.used.catch(() => {});
  }
}

interface Call {
  from: number;
  to: number;
  buffer: Buffer;
  used: Promise<number>;
}

/** Commits [from, to) as 20-byte ids, from the sequence's `<hex>\n` records. */
function binaryIds(commits: CommitSequence, from: number, to: number): Buffer {
  return Buffer.from(commits.slice(from, to).toString('latin1').replaceAll('\n', ''), 'hex');
}

/**
 * One listed commit's record (native-module.ts, listChanges): its parents and changes, each with an
 * old side a parent (one, `oneSide`, in a per-parent listing's).
 */
function readRecord(
  buffer: Buffer,
  start: number,
  oneSide: boolean,
): { parents: number; changes: TreeChange[]; end: number } {
  let at = start;
  const parents = buffer.readUInt32LE(at);
  const count = buffer.readUInt32LE(at + 4);
  at += 8;
  const sides = oneSide ? 1 : Math.max(parents, 1); // a root commit's one old side is empty
  const changes: TreeChange[] = [];
  const oldModes: number[] = new Array(sides);
  const oldIds: (string | null)[] = new Array(sides);
  for (let c = 0; c < count; c++) {
    const pathLength = buffer.readUInt32LE(at);
    const path = buffer.toString('latin1', at + 4, at + 4 + pathLength);
    at += 4 + pathLength;
    const newMode = buffer.readUInt32LE(at);
    const newId = newMode === 0 ? null : buffer.toString('hex', at + 4, at + 24);
    at += 24;
    for (let k = 0; k < sides; k++) {
      oldModes[k] = buffer.readUInt32LE(at);
      oldIds[k] = oldModes[k] === 0 ? null : buffer.toString('hex', at + 4, at + 24);
      at += 24;
    }
    const change = changeOf(path, newMode, newId, oldModes, oldIds);
    if (change !== null) changes.push(change);
  }
  return { parents, changes, end: at };
}
