import { closeSync, fstatSync, readSync, writeSync } from 'node:fs';
import { openUnlinkedTempFile } from './record-log.js';

/** Commit ids by place, and runs of them as `<hex>\n` records for git's standard input. */
export interface CommitSequence {
  readonly length: number;
  at(i: number): string;
  /** The records of commits [from, to). */
  slice(from: number, to: number): Buffer;
  /** The walk's facts of commits [from, to) (CommitFacts), when the list has them. */
  facts?(from: number, to: number): Buffer | null;
}

/** Reads `length` bytes of the file `fd` from `position` into `target` at `at`; `name` says which file ended early. */
function readFully(
  fd: number,
  target: Buffer,
  at: number,
  position: number,
  length: number,
  name: string,
): void {
  let done = 0;
  while (done < length) {
    const got = readSync(fd, target, at + done, length - done, position + done);
    if (got === 0) throw new Error(`${name} was cut short`);
    done += got;
  }
}

/** The bytes of a commit's fact (native commit_facts.rs: its tree, first parent and parent count). */
export const FACT_SIZE = 44;

/**
 * What the native commit walk read of each commit (its tree and parents), one fact a commit in the
 * list's order, in a temporary file beside its CommitFile: the listing is handed them and does not
 * read those commits again (44 bytes a commit: 8.8 MB on 200,000 commits, on disk, not in memory).
 * Ids only. Unlinked as soon as open (record-log.ts).
 */
export class CommitFacts {
  private fd: number | null = openUnlinkedTempFile('svc-commit-facts-');
  size = 0;

  /** The descriptor the walk writes the facts to, from the file's start. */
  descriptor(): number {
    return this.open();
  }

  /** After the walk: it wrote the facts of `commits` commits (checked against the file's size). */
  written(commits: number): void {
    const size = commits * FACT_SIZE;
    if (fstatSync(this.open()).size !== size)
      throw new Error('the commit facts file is not one fact a commit');
    this.size = size;
  }

  /** The facts of commits [from, to), in order. */
  read(from: number, to: number): Buffer {
    const out = Buffer.allocUnsafe((to - from) * FACT_SIZE);
    readFully(this.open(), out, 0, from * FACT_SIZE, out.length, 'the commit facts file');
    return out;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private open(): number {
    if (this.fd === null) throw new Error('the commit facts file is closed');
    return this.fd;
  }
}

/** Where a list's `<hex>\n` records are: one buffer, or a temporary file (CommitFile). */
interface RecordStore {
  /** Bytes held. */
  readonly size: number;
  /** Copies bytes [from, to) into `target` at `at`. */
  copy(target: Buffer, at: number, from: number, to: number): void;
  /** Bytes [from, to) as latin1 text. */
  text(from: number, to: number): string;
  /** Bytes [from, to): a view when they are in memory, else a copy. */
  bytes(from: number, to: number): Buffer;
  close(): void;
}

class MemoryRecords implements RecordStore {
  constructor(private readonly buffer: Buffer) {}
  get size(): number {
    return this.buffer.length;
  }
  copy(target: Buffer, at: number, from: number, to: number): void {
    this.buffer.copy(target, at, from, to);
  }
  text(from: number, to: number): string {
    return this.buffer.toString('latin1', from, to);
  }
  bytes(from: number, to: number): Buffer {
    return this.buffer.subarray(from, to);
  }
  close(): void {}
}

/** Bytes read from a CommitFile at a time for single records (a few thousand records). */
const BLOCK = 1 << 16;

/**
 * A commit list's records in a temporary file, appended as git lists them and then read in place:
 * the commit list of a full scan (`git rev-list --all`, 41 bytes a commit: 8 MB on 200,000 commits,
 * 53 MB on a 1.3-million-commit history, and as much again while git's output was gathered and
 * joined) is not held in memory. Ids only, never a blob's content. The file is unlinked as soon as
 * it is open (record-log.ts). Single records are read through one block of 64 KB: the listing asks
 * for them in order, from the list's end back.
 */
export class CommitFile implements RecordStore {
  private fd: number | null = openUnlinkedTempFile('svc-commits-');
  size = 0;
  /** The commits' facts, one a record, when the walk wrote them (closed with this file). */
  facts: CommitFacts | null = null;
  private readonly block = Buffer.allocUnsafe(BLOCK);
  private blockStart = 0;
  private blockEnd = 0;

  append(chunk: Buffer): void {
    let written = 0;
    while (written < chunk.length) {
      written += writeSync(this.open(), chunk, written, chunk.length - written, this.size + written);
    }
    this.size += chunk.length;
  }

  copy(target: Buffer, at: number, from: number, to: number): void {
    if (to - from <= BLOCK) {
      this.load(from, to);
      this.block.copy(target, at, from - this.blockStart, to - this.blockStart);
      return;
    }
    this.read(target, at, from, to);
  }

  text(from: number, to: number): string {
    this.load(from, to);
    return this.block.toString('latin1', from - this.blockStart, to - this.blockStart);
  }

  bytes(from: number, to: number): Buffer {
    const out = Buffer.allocUnsafe(to - from);
    this.copy(out, 0, from, to);
    return out;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.facts?.close();
  }

  /**
   * Lets `write` fill the empty file through its descriptor (from its start, with positioned
   * writes); it gives the bytes written, which the file then holds.
   */
  async fill(write: (fd: number) => Promise<number>): Promise<void> {
    if (this.size !== 0) throw new Error('the commit list file is not empty');
    this.size = await write(this.open());
  }

  /** Makes [from, to) (at most a block) be in the block: the block that ends at `to` when reading backwards. */
  private load(from: number, to: number): void {
    if (from >= this.blockStart && to <= this.blockEnd) return;
    // Reading backwards (the listing takes the list from its end), the block ends where asked.
    const backwards = to <= this.blockStart;
    const start = backwards ? Math.max(0, to - BLOCK) : from;
    const end = Math.min(this.size, start + BLOCK);
    this.read(this.block, 0, start, end);
    this.blockStart = start;
    this.blockEnd = end;
  }

  private read(target: Buffer, at: number, from: number, to: number): void {
    readFully(this.open(), target, at, from, to - from, 'the commit list file');
  }

  private open(): number {
    if (this.fd === null) throw new Error('the commit list file is closed');
    return this.fd;
  }
}

/** `run`'s records of `width` bytes in the opposite order. */
function reversedRecords(run: Buffer, width: number): Buffer {
  const count = width === 0 ? 0 : run.length / width;
  const out = Buffer.allocUnsafe(run.length);
  for (let i = 0; i < count; i++) run.copy(out, i * width, (count - 1 - i) * width, (count - i) * width);
  return out;
}

/**
 * A CommitList read from its end: no copy of the list (41 bytes a commit, 53 MB for a
 * 1.3-million-commit history), each run it gives reversed as it is asked for.
 */
export class ReversedCommits implements CommitSequence {
  constructor(private readonly list: CommitList) {}
  get length(): number {
    return this.list.length;
  }
  at(i: number): string {
    return this.list.at(this.list.length - 1 - i);
  }
  slice(from: number, to: number): Buffer {
    const n = this.list.length;
    return reversedRecords(this.list.slice(n - to, n - from), this.list.width);
  }
  facts(from: number, to: number): Buffer | null {
    const n = this.list.length;
    const run = this.list.facts(n - to, n - from);
    return run === null ? null : reversedRecords(run, FACT_SIZE);
  }
  /** The commits at the first `count` of `places` (places in this order), as a list. */
  pick(places: Int32Array, count: number): CommitList {
    const n = this.list.length;
    const mapped = new Int32Array(count);
    for (let k = 0; k < count; k++) mapped[k] = n - 1 - places[k]!;
    return this.list.pick(mapped, count);
  }
}

/**
 * A list of commit ids as fixed-width `<hex>\n` records (~41 bytes a commit), in one buffer or in a
 * temporary file (CommitFile, with the walk's facts when it has them).
 */
export class CommitList implements CommitSequence {
  private readonly store: RecordStore;
  private readonly factFile: CommitFacts | null;
  constructor(
    records: Buffer | CommitFile,
    readonly width: number,
  ) {
    this.store = records instanceof CommitFile ? records : new MemoryRecords(records);
    this.factFile = records instanceof CommitFile ? records.facts : null;
  }
  /** The facts of commits [from, to) where the walk wrote them; a list made from this one has none. */
  facts(from: number, to: number): Buffer | null {
    return this.factFile === null ? null : this.factFile.read(from, to);
  }
  get length(): number {
    return this.width === 0 ? 0 : this.store.size / this.width;
  }
  at(i: number): string {
    return this.store.text(i * this.width, (i + 1) * this.width - 1);
  }
  from(i: number): Buffer {
    return this.slice(i, this.length);
  }
  /** The records of commits [from, to). */
  slice(from: number, to: number): Buffer {
    return this.store.bytes(from * this.width, to * this.width);
  }
  /** The commits for which `keep` says true, in the same order. */
  filter(keep: (sha: string) => boolean): CommitList {
    const parts: Buffer[] = [];
    for (let i = 0; i < this.length; i++) {
      if (keep(this.at(i))) parts.push(this.slice(i, i + 1));
    }
    return new CommitList(Buffer.concat(parts), parts.length === 0 ? 0 : this.width);
  }
  /** The commits at the first `count` of `places`, in that order. */
  pick(places: Int32Array, count: number): CommitList {
    const out = Buffer.allocUnsafe(count * this.width);
    for (let k = 0; k < count; k++) {
      const at = places[k]! * this.width;
      this.store.copy(out, k * this.width, at, at + this.width);
    }
    return new CommitList(out, count === 0 ? 0 : this.width);
  }
  concat(other: CommitList): CommitList {
    if (other.length === 0) return this;
    if (this.length === 0) return other;
    return new CommitList(Buffer.concat([this.from(0), other.from(0)]), this.width);
  }
  /** Lets the records' file go (a list in memory has none). */
  close(): void {
    this.store.close();
  }
  static of(shas: readonly string[]): CommitList {
    const width = shas.length > 0 ? shas[0]!.length + 1 : 0;
    return new CommitList(Buffer.from(shas.map((c) => `${c}\n`).join(''), 'latin1'), width);
  }
}
