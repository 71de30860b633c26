import { closeSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Numbers held in memory before the log goes to a file (4 MB). */
const MEMORY_NUMBERS = 1 << 20;

/**
 * An append-only log of records of 32-bit integers, read back once in order: what each commit of
 * the listing changed, as path and blob numbers (blob-table.ts), which is read only after every
 * blob is gated. It grows with history (about 40 bytes a commit), so past 4 MB it goes to a
 * temporary file, written and read in 4 MB pieces: numbers only, never a blob's content or an id.
 * The file is unlinked as soon as it is open, so it leaves nothing behind whatever happens to the
 * process.
 */
export class RecordLog {
  private buffer = new Int32Array(MEMORY_NUMBERS);
  private length = 0;
  private fd: number | null = null;
  /** Numbers written to the file so far. */
  private spilled = 0;
  records = 0;

  /** Appends one record: `values[0, length)`. */
  append(values: Int32Array, length: number): void {
    if (this.length + length + 1 > this.buffer.length) {
      this.spill();
      if (length + 1 > this.buffer.length) this.buffer = new Int32Array(length + 1);
    }
    this.buffer[this.length++] = length;
    this.buffer.set(values.subarray(0, length), this.length);
    this.length += length;
    this.records++;
  }

  /** Calls `visit` with each record, in order: its numbers are `numbers[from, to)`, valid during the call. */
  readAll(visit: (numbers: Int32Array, from: number, to: number) => void): void {
    if (this.fd === null) {
      this.walk(this.buffer, 0, this.length, visit);
      return;
    }
    this.spill();
    let chunk = new Int32Array(MEMORY_NUMBERS);
    let held = 0; // numbers of a record cut by the end of the last read, moved to the front
    for (let read = 0; read < this.spilled; ) {
      const want = Math.min(chunk.length - held, this.spilled - read);
      const bytes = readSync(this.fd, chunk, held * 4, want * 4, read * 4);
      if (bytes !== want * 4) throw new Error('the record log file was cut short');
      read += want;
      const end = held + want;
      const done = this.walk(chunk, 0, end, visit);
      held = end - done;
      if (held === chunk.length) {
        // One record larger than the chunk: room for it.
        const larger = new Int32Array(chunk.length * 2);
        larger.set(chunk);
        chunk = larger;
      } else {
        chunk.copyWithin(0, done, end);
      }
    }
    if (held > 0) throw new Error('the record log file ends inside a record');
  }

  /** Lets the file go. */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** Visits the whole records in `numbers[from, to)`; returns where the first incomplete one starts. */
  private walk(
    numbers: Int32Array,
    from: number,
    to: number,
    visit: (numbers: Int32Array, from: number, to: number) => void,
  ): number {
    let at = from;
    while (at < to) {
      const length = numbers[at]!;
      if (at + 1 + length > to) break;
      visit(numbers, at + 1, at + 1 + length);
      at += 1 + length;
    }
    return at;
  }

  private spill(): void {
    if (this.length === 0) return;
    if (this.fd === null) this.fd = openUnlinkedTempFile('svc-records-');
    const bytes = this.length * 4;
    let written = 0;
    while (written < bytes) {
      written += writeSync(this.fd, this.buffer, written, bytes - written, this.spilled * 4 + written);
    }
    this.spilled += this.length;
    this.length = 0;
  }
}

/**
 * A new temporary file, open for reading and writing (mode 0600, in a directory of its own), already
 * unlinked: nothing is left behind whatever happens to the process. Returns its descriptor.
 */
export function openUnlinkedTempFile(prefix: string): number {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    const file = join(dir, 'records');
    const fd = openSync(file, 'w+', 0o600);
    unlinkSync(file);
    return fd;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
