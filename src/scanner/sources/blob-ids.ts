import { closeSync, readSync, writeSync } from 'node:fs';
import { openUnlinkedTempFile } from './record-log.js';

/** Ids a spilled run keeps in memory as its block index: one a block of this many records. */
const BLOCK_RECORDS = 128;
/** Bloom filter bits a spilled id, and probes: about one id in 120 not spilled reads a block. */
const BLOOM_BITS_PER_ID = 10;
const BLOOM_PROBES = 7;
/** Places in memory are sorted as `first 32 bits * 2^21 + place`: exact in a double. */
const MOST_HELD = 1 << 21;

/** Ids spilled together: sorted records (id, then its index as 32 bits) at `at` in the file. */
interface Run {
  at: number;
  count: number;
  /** The first id of each block of BLOCK_RECORDS records. */
  firsts: Buffer;
  bloom: Uint32Array;
  bloomMask: number;
}

/**
 * Object ids interned as small integers (0, 1, 2... in the order first seen), held as their bytes in
 * one buffer and found through an open-addressing table of typed arrays: 20 bytes an id plus 8 of
 * table, where a `Map` of hex strings took about 100 (30 MB for rails' 292,562 blobs). The garbage
 * collector sees a few objects, not a string and an entry per id.
 *
 * Past `memoryLimit` ids in memory, they go to a temporary file (ids and numbers only, never a blob's
 * content), sorted, as a run of their own: memory keeps each run's first id of every 128 and a Bloom
 * filter (1.4 bytes an id, against 28-40), and memory's table starts again empty. An id not in memory
 * is looked for in each run whose filter may hold it, by one read of 128 records. So the table holds
 * at most `memoryLimit` ids whatever the history's length; below it nothing is written. The ids the
 * scan looks up most, the version of a path a commit replaces, were mostly interned a few commits
 * before: on rails, with 16,384 ids in memory (18 runs), the scan took the time it takes with all.
 *
 * An id is kept whole (SHA-1's 20 bytes, SHA-256's 32), never a prefix: blobs whose ids share a
 * prefix can be made on purpose, and one taken for another would be gated as the other.
 */
export class BlobIds {
  /** Bytes per id, set by the first id (every id of a repository has the same length). */
  private width = 0;
  /** The ids in memory, one after another, and each one's index. */
  private bytes = Buffer.alloc(0);
  private indexes = new Int32Array(1 << 12);
  private held = 0;
  /** Place in memory + 1 of the id in each slot; 0 for an empty slot. Size a power of two, at most half full. */
  private slots = new Int32Array(1 << 12);
  private readonly scratch = Buffer.alloc(64);
  private readonly runs: Run[] = [];
  private fd: number | null = null;
  private fileBytes = 0;
  private block = Buffer.alloc(0);
  size = 0;

  /** Ids held in memory before they go to the file: at most 2^21; none go when not given. */
  private readonly memoryLimit: number;

  constructor(memoryLimit = Number.POSITIVE_INFINITY) {
    if (!(memoryLimit >= 1)) throw new Error(`memoryLimit must be at least 1, not ${memoryLimit}`);
    this.memoryLimit = Number.isFinite(memoryLimit) ? Math.min(memoryLimit, MOST_HELD) : memoryLimit;
  }

  /** How many ids went to the file. */
  get spilled(): number {
    return this.size - this.held;
  }

  /** The index of `id` (hex), or -1 when it was never interned. */
  find(id: string): number {
    if (this.size === 0) return -1;
    if (!this.parse(id)) return -1;
    return this.findScratch(this.slotOf());
  }

  /** The index of `id` (hex), interning it when new: then it is `size - 1`. */
  intern(id: string): number {
    if (this.width === 0) {
      this.width = id.length >> 1;
      this.bytes = Buffer.alloc(this.width * 4096);
    }
    if (!this.parse(id)) throw new Error(`not an object id of this repository: ${id.slice(0, 80)}`);
    let slot = this.slotOf();
    const found = this.findScratch(slot);
    if (found !== -1) return found;
    if (this.held >= this.memoryLimit) {
      this.spill();
      slot = this.slotOf();
    }
    const index = this.size++;
    const place = this.held++;
    if (this.held * this.width > this.bytes.length) {
      const grown = Buffer.alloc(this.bytes.length * 2);
      this.bytes.copy(grown);
      this.bytes = grown;
    }
    if (place >= this.indexes.length) {
      const grown = new Int32Array(this.indexes.length * 2);
      grown.set(this.indexes);
      this.indexes = grown;
    }
    this.scratch.copy(this.bytes, place * this.width, 0, this.width);
    this.indexes[place] = index;
    this.slots[slot] = place + 1;
    if (this.held * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    return index;
  }

  /** Lets the file go (when ids went to one). */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /** Puts `id`'s bytes in the scratch buffer; false when it is not hex of this repository's width. */
  private parse(id: string): boolean {
    return id.length === this.width * 2 && this.scratch.write(id, 0, this.width, 'hex') === this.width;
  }

  /** The index of the scratch id, in memory (its slot given) or in a run; -1 when it is in neither. */
  private findScratch(slot: number): number {
    const place = this.slots[slot]! - 1;
    if (place !== -1) return this.indexes[place]!;
    for (let r = this.runs.length - 1; r >= 0; r--) {
      const index = this.findInRun(this.runs[r]!);
      if (index !== -1) return index;
    }
    return -1;
  }

  /** The slot holding the scratch id, or the empty slot where it would go (linear probing). */
  private slotOf(): number {
    const mask = this.slots.length - 1;
    // An object id is a cryptographic hash: its first bytes are as good a hash as any.
    for (let slot = this.scratch.readUInt32LE(0) & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot]!;
      if (held === 0) return slot;
      const at = (held - 1) * this.width;
      if (this.scratch.compare(this.bytes, at, at + this.width, 0, this.width) === 0) return slot;
    }
  }

  private rehash(size: number): void {
    const slots = new Int32Array(size);
    const mask = slots.length - 1;
    for (let place = 0; place < this.held; place++) {
      let slot = this.bytes.readUInt32LE(place * this.width) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = place + 1;
    }
    this.slots = slots;
  }

  /** Writes the ids in memory to the file as a run, sorted, and empties memory's table. */
  private spill(): void {
    const width = this.width;
    const count = this.held;
    // Sorted as numbers (the first four bytes big-endian, then the place), not through a comparator
    // called millions of times; places whose first four bytes are equal are put in order after.
    const order = new Float64Array(count);
    for (let place = 0; place < count; place++) {
      order[place] = this.bytes.readUInt32BE(place * width) * MOST_HELD + place;
    }
    order.sort();
    const places = Int32Array.from(order, (key) => key % MOST_HELD);
    for (let from = 0; from < count; ) {
      let to = from + 1;
      const prefix = Math.floor(order[from]! / MOST_HELD);
      while (to < count && Math.floor(order[to]! / MOST_HELD) === prefix) to++;
      if (to - from > 1) {
        const tied = Array.from(places.subarray(from, to)).sort((a, b) =>
          this.bytes.compare(this.bytes, b * width, (b + 1) * width, a * width, (a + 1) * width),
        );
        places.set(tied, from);
      }
      from = to;
    }

    const recordSize = width + 4;
    const records = Buffer.allocUnsafe(count * recordSize);
    const blocks = Math.ceil(count / BLOCK_RECORDS);
    const firsts = Buffer.allocUnsafe(blocks * width);
    let bloomBits = 32;
    while (bloomBits < count * BLOOM_BITS_PER_ID) bloomBits *= 2;
    const run: Run = {
      at: this.fileBytes,
      count,
      firsts,
      bloom: new Uint32Array(bloomBits / 32),
      bloomMask: bloomBits - 1,
    };
    for (let k = 0; k < count; k++) {
      const place = places[k]!;
      this.bytes.copy(records, k * recordSize, place * width, (place + 1) * width);
      records.writeInt32LE(this.indexes[place]!, k * recordSize + width);
      if (k % BLOCK_RECORDS === 0)
        this.bytes.copy(firsts, (k / BLOCK_RECORDS) * width, place * width, (place + 1) * width);
      this.bloomAdd(run, this.bytes, place * width);
    }
    this.fd ??= openUnlinkedTempFile('svc-ids-');
    for (let written = 0; written < records.length; ) {
      written += writeSync(this.fd, records, written, records.length - written, run.at + written);
    }
    this.fileBytes += records.length;
    this.runs.push(run);
    this.held = 0;
    this.slots.fill(0);
  }

  /** The index of the scratch id in `run`, or -1. */
  private findInRun(run: Run): number {
    if (!this.bloomHas(run)) return -1;
    const width = this.width;
    // The last block whose first id is at most the one looked for.
    let low = 0;
    let high = run.firsts.length / width - 1;
    if (this.scratch.compare(run.firsts, 0, width, 0, width) < 0) return -1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.scratch.compare(run.firsts, middle * width, (middle + 1) * width, 0, width) >= 0) low = middle;
      else high = middle - 1;
    }
    const recordSize = width + 4;
    const first = low * BLOCK_RECORDS;
    const records = Math.min(BLOCK_RECORDS, run.count - first);
    if (this.block.length < BLOCK_RECORDS * recordSize)
      this.block = Buffer.allocUnsafe(BLOCK_RECORDS * recordSize);
    const bytes = records * recordSize;
    const read = readSync(this.fd!, this.block, 0, bytes, run.at + first * recordSize);
    if (read !== bytes) throw new Error('the spilled object ids were cut short');
    for (let lo = 0, hi = records - 1; lo <= hi; ) {
      const middle = (lo + hi) >> 1;
      const order = this.scratch.compare(
        this.block,
        middle * recordSize,
        middle * recordSize + width,
        0,
        width,
      );
      if (order === 0) return this.block.readInt32LE(middle * recordSize + width);
      if (order > 0) lo = middle + 1;
      else hi = middle - 1;
    }
    return -1;
  }

  /** Sets the filter's bits for the id at `bytes[at]`. */
  private bloomAdd(run: Run, bytes: Buffer, at: number): void {
    for (let probe = 0; probe < BLOOM_PROBES; probe++) {
      const bit = bloomBit(bytes, at, probe, run.bloomMask);
      run.bloom[bit >>> 5] = run.bloom[bit >>> 5]! | (1 << (bit & 31));
    }
  }

  /** Whether the filter may hold the id in `scratch`. */
  private bloomHas(run: Run): boolean {
    for (let probe = 0; probe < BLOOM_PROBES; probe++) {
      const bit = bloomBit(this.scratch, 0, probe, run.bloomMask);
      if ((run.bloom[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

/**
 * The filter bit of probe `probe` for the id at `bytes[at]`: double hashing on two of its 32-bit
 * words (an id is a cryptographic hash; its first word already places it in memory's table).
 */
function bloomBit(bytes: Buffer, at: number, probe: number, mask: number): number {
  return (bytes.readUInt32LE(at + 4) + Math.imul(probe, bytes.readUInt32LE(at + 8) | 1)) & mask;
}
