import { KeywordFinder } from '../detect/keyword-finder.js';
import { changedRegion, DetectionLineGate } from './blob-gate.js';
import type { BlobSink } from './blob-stream.js';
import { BlobState, type BlobTable } from './blob-table.js';

/**
 * Contents held in memory: blobs waiting for the version they replace, and recent ones (16 MB was
 * as fast as 48 MB on a 39,000-commit history, and 40 MB smaller).
 */
const HELD_BYTES = 16 << 20;
/** Larger blobs are gated whole as a stream, never held. */
const WHOLE_BLOB_LIMIT = 8 << 20;

/**
 * Gates each blob against the version it replaced (its reference), whichever of the two arrives
 * first: a blob whose reference is still to come waits in memory for it. Each file's versions are
 * read oldest first (request-order.ts), so a reference has nearly always arrived just before and a
 * blob is gated at once (one from a merged branch, listed in another order, may come later).
 * Waiting blobs are bounded (HELD_BYTES): the one that waited longest is gated whole instead.
 *
 * For each blob it holds, the gate keeps where all its detection lines are, so the next version
 * reads only the lines the two do not share (DetectionLineGate.detectionLinesSharing).
 *
 * Oldest first although git inflates blobs 1.4-1.6x faster newest first (its packs store the newest
 * version whole): measured on a 39,000-commit history, newest first left 4x as many commits for
 * git's diff (a blob first met through a rebased copy of its commit pairs with a version the other
 * copies do not have) and cost more than it saved.
 */
export class DeferredGate {
  /**
   * Finds keywords; its room is the ring below, so held blobs are searched where they lie. One
   * serves both of the gate's users: it runs synchronously.
   */
  readonly finder: KeywordFinder;
  /** Gates regions of held blobs (synchronously: one instance serves every stream). */
  private readonly gate: DetectionLineGate;
  /** Contents by blob; a blob is "waiting" while its state is Pending. */
  private readonly held = new Map<number, Buffer>();
  /**
   * The held blobs, oldest first from `oldest` on: contents go in the order they came (allocate,
   * trim), so the oldest is found here at once. Found by iterating `held` instead, it was found past
   * every entry deleted before it, which a Map keeps until it is next rebuilt: on 40,000 synthetic
   * commits (small blobs, thousands held) that walk was an eighth of the main thread's time.
   */
  private heldOrder: number[] = [];
  private oldest = 0;
  /**
   * For held blobs gated so far: where each of their detection lines starts, all of them. What lets
   * the next version skip the lines it shares with this one (see gateAgainst).
   */
  private readonly detections = new Map<number, number[]>();
  private heldBytes = 0;
  /**
   * Where contents are held: one buffer, filled round and round (allocate). The scan reads every
   * version of every file (1.6 GB on a 39,000-commit history); a buffer of its own for each would
   * leave V8 that much garbage to find, and it finds it late (external memory is collected with the
   * old generation). It is the keyword finder's room.
   */
  private readonly ring: Buffer;
  private ringHead = 0;
  private streams = 0;
  /** Blob -> the waiting blobs that replaced it and wait for its content. */
  private readonly waiters = new Map<number, number[]>();
  /** Blob -> the blobs found CleanAgainstPair against it: clean outright if it turns out clean. */
  private readonly dependents = new Map<number, number[]>();

  constructor(
    private readonly blobs: BlobTable,
    /** How many bytes of contents are held, and the largest blob held (tests make them small). */
    readonly limits = { held: HELD_BYTES, wholeBlob: WHOLE_BLOB_LIMIT },
  ) {
    this.finder = new KeywordFinder(limits.held + limits.wholeBlob);
    this.ring = this.finder.room;
    this.gate = new DetectionLineGate(this.finder);
  }

  /** A sink for the `git cat-file` stream feeding this gate (one: contents are filled in turn). */
  sink(): BlobSink {
    if (this.streams++ > 0) throw new Error('a DeferredGate takes one blob stream');
    return new StreamSink(this);
  }

  /**
   * Room for the next blob's content (at most `limits.wholeBlob` bytes), after the last one in the
   * ring, dropping the oldest held contents it would overwrite. Contents are held in the order they
   * were given room, so those are always the oldest: the ones next after the head.
   */
  allocate(size: number): Buffer {
    if (this.ringHead + size > this.ring.length) this.ringHead = 0;
    const start = this.ringHead;
    const end = start + size;
    for (let content = this.oldestContent(); content !== undefined; content = this.oldestContent()) {
      const at = content.byteOffset - this.ring.byteOffset;
      const inTheWay = (at >= start && at < end) || (at < end && at + content.length > start);
      if (!inTheWay) break;
      this.dropOldest();
    }
    this.ringHead = end;
    return this.ring.subarray(start, end);
  }

  /** A blob's whole content is here. */
  arrived(index: number, content: Buffer): void {
    this.hold(index, content);
    for (const waiting of this.takeWaiters(index)) this.tryGate(waiting);
    this.tryGate(index);
    this.trim();
  }

  /** A blob too large to hold was gated whole as it streamed by. */
  streamed(index: number, found: boolean): void {
    this.settle(index, found ? BlobState.Detection : BlobState.Clean);
    for (const waiting of this.takeWaiters(index)) this.tryGate(waiting);
  }

  missing(index: number): void {
    this.blobs.state[index] = BlobState.Missing;
    this.blobs.missingCount++;
    this.blobs.forgetReferences(index);
    for (const waiting of this.takeWaiters(index)) this.tryGate(waiting);
  }

  /** The commit that first brings `index` in is listed: its references are known now. */
  introduced(index: number): void {
    if (this.held.has(index)) this.tryGate(index);
  }

  /** Everything answered: what still waits (a reference that never came) is gated whole. */
  flush(): void {
    for (const index of [...this.held.keys()]) this.gateWhole(index);
    this.held.clear();
    this.heldOrder = [];
    this.oldest = 0;
    this.detections.clear();
    this.heldBytes = 0;
  }

  /**
   * Gates a held blob when it can: against a reference whose content is here, or whole when it has
   * none; else it waits for the first reference still to come. A blob not yet known to be brought
   * in by a listed commit waits for that.
   */
  private tryGate(index: number): void {
    if (this.blobs.state[index] !== BlobState.Pending) return;
    const content = this.held.get(index);
    const references = this.blobs.referencesOf(index);
    if (content === undefined || references === undefined) return;
    let coming = -1;
    for (const reference of references) {
      const base = this.held.get(reference);
      if (base !== undefined) {
        this.gateAgainst(index, content, reference, base);
        return;
      }
      // Pending and not held: not here yet (one that came and left was settled on its way out).
      if (coming === -1 && this.blobs.state[reference] === BlobState.Pending) coming = reference;
    }
    if (coming === -1) {
      this.gateWhole(index);
      return;
    }
    push(this.waiters, coming, index);
  }

  private gateAgainst(index: number, content: Buffer, reference: number, base: Buffer): void {
    const [from, to] = changedRegion(content, base, this.finder);
    const known = this.detections.get(reference);
    let found: boolean;
    if (known === undefined) {
      found = this.gate.scan(content, from, to);
    } else {
      const lines = this.gate.detectionLinesSharing(content, from, to, base, known);
      this.detections.set(index, lines);
      found = lines.some((at) => at >= from && at < to);
    }
    if (found) {
      this.settle(index, BlobState.Detection);
    } else if (this.blobs.state[reference] === BlobState.Clean) {
      this.settle(index, BlobState.Clean); // lines shared with a clean version are clean too
    } else {
      // Clean outright as soon as the reference is known clean: it is gated later, as the version
      // it replaced arrives after it.
      this.blobs.pairedWith[index] = reference;
      this.settle(index, BlobState.CleanAgainstPair);
      if (this.blobs.state[reference] !== BlobState.Detection) push(this.dependents, reference, index);
    }
  }

  private gateWhole(index: number): void {
    if (this.blobs.state[index] !== BlobState.Pending) return;
    const content = this.held.get(index);
    if (content === undefined) return;
    const lines: number[] = [];
    this.gate.detectionLines(content, 0, content.length, lines);
    this.detections.set(index, lines);
    this.settle(index, lines.length > 0 ? BlobState.Detection : BlobState.Clean);
  }

  private settle(index: number, state: BlobState): void {
    this.blobs.state[index] = state;
    this.blobs.forgetReferences(index);
    if (state === BlobState.CleanAgainstPair) return;
    // Clean spreads to the versions paired with it, and on along their chain.
    const stack = [index];
    if (state !== BlobState.Clean) this.dependents.delete(index);
    for (let clean = stack.pop(); clean !== undefined; clean = stack.pop()) {
      for (const dependent of this.dependents.get(clean) ?? []) {
        if (
          this.blobs.state[dependent] === BlobState.CleanAgainstPair &&
          this.blobs.pairedWith[dependent] === clean
        ) {
          this.blobs.state[dependent] = BlobState.Clean;
          stack.push(dependent);
        }
      }
      this.dependents.delete(clean);
    }
  }

  private hold(index: number, content: Buffer): void {
    this.held.set(index, content);
    this.heldOrder.push(index);
    this.heldBytes += content.length;
  }

  private takeWaiters(index: number): number[] {
    const list = this.waiters.get(index) ?? [];
    this.waiters.delete(index);
    return list;
  }

  /** Over budget: drop the oldest contents. */
  private trim(): void {
    while (this.heldBytes > this.limits.held && this.oldest < this.heldOrder.length) this.dropOldest();
  }

  /** The oldest held content, or undefined when none is held. */
  private oldestContent(): Buffer | undefined {
    return this.oldest < this.heldOrder.length ? this.held.get(this.heldOrder[this.oldest]!) : undefined;
  }

  /** Lets the oldest content go, gating it whole first if it still waits. */
  private dropOldest(): void {
    const index = this.heldOrder[this.oldest++]!;
    if (this.oldest >= 1024 && this.oldest * 2 >= this.heldOrder.length) {
      this.heldOrder = this.heldOrder.slice(this.oldest);
      this.oldest = 0;
    }
    const content = this.held.get(index)!;
    this.gateWhole(index);
    this.held.delete(index);
    this.detections.delete(index);
    this.heldBytes -= content.length;
  }
}

function push(map: Map<number, number[]>, key: number, value: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** The per-stream half of the gate: collects one blob's chunks, or gates an over-large one as it streams. */
class StreamSink implements BlobSink {
  private readonly streaming: DetectionLineGate;
  private current = -1;
  /** The blob being collected (null while an over-large one streams by), and how much has come. */
  private content: Buffer | null = null;
  private filled = 0;

  constructor(private readonly gate: DeferredGate) {
    this.streaming = new DetectionLineGate(gate.finder);
  }

  start(index: number, size: number): void {
    this.current = index;
    this.streaming.reset();
    // Room in the gate's ring, not a view of the pipe's chunk: a held view would keep the whole chunk
    // alive, and the pipe's next chunk is a new one anyway.
    this.content = size <= this.gate.limits.wholeBlob ? this.gate.allocate(size) : null;
    this.filled = 0;
  }

  chunk(data: Buffer): void {
    if (this.content === null) {
      this.streaming.push(data);
    } else {
      data.copy(this.content, this.filled);
      this.filled += data.length;
    }
  }

  end(): void {
    if (this.content === null) {
      this.gate.streamed(this.current, this.streaming.end());
      return;
    }
    const content = this.content;
    this.content = null;
    this.gate.arrived(this.current, content);
  }

  missing(index: number): void {
    this.gate.missing(index);
  }
}
