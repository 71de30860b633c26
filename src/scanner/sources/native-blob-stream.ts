import { type BlobSink, BlobStream } from './blob-stream.js';
import { type GitRunner, HandlerGuard } from './git.js';
import type { ObjectDatabase, ObjectReaderModule } from './native-module.js';
import { openObjectDatabase } from './object-database.js';

/** What blob-first.ts reads blobs through: `git cat-file --batch` (BlobStream) or this process. */
export interface BlobReader {
  request(id: string, index: number): void;
  send(): void;
  readonly pending: number;
  whenPendingAtMost(limit: number, ready: () => void): void;
  finish(): Promise<void>;
  abort(): void;
}

/**
 * Reads blobs in this process where the native object reader loads and the repository is one it
 * reads (object-database.ts); else through `git cat-file --batch`.
 */
export async function openBlobReader(git: GitRunner, sink: BlobSink): Promise<BlobReader> {
  const native = await NativeBlobStream.open(git, sink);
  return native ?? (await BlobStream.open(git, sink));
}

/** Ids a read call is given; it answers as many as fit in its buffer, and the rest are asked again. */
const IDS_PER_READ = 256;
/** Read calls under way at once: each on a worker thread of its own, so up to both cores. */
const READS_AT_ONCE = 2;
/** Batches read or being read, awaiting their turn to be answered: each holds a buffer. */
const BATCHES_AT_ONCE = 3;
/**
 * What a read call writes its answers into. A larger object is left to `cat-file`, which streams it
 * (the reader would hold it whole, as git holds one it rebuilds from deltas).
 */
const ANSWER_BUFFER_SIZE = 2 << 20;
/** Any object the reader rebuilds may be as large as its buffer holds. */
const MAX_IN_PROCESS_SIZE = ANSWER_BUFFER_SIZE - 6;

const FOUND = 0;

/** How many answers (a 6-byte head: status, then size at 2; a found object's bytes after) `used` bytes hold. */
function answersIn(out: Buffer, used: number): number {
  let count = 0;
  for (let at = 0; at < used; count++) at += 6 + (out[at] === FOUND ? out.readUInt32LE(at + 2) : 0);
  return count;
}

/**
 * One read call: its ids and request numbers, the buffer its answers go to (none while it waits for
 * one), and how much of it they took.
 */
interface Batch {
  ids: Buffer;
  indexes: Int32Array;
  out?: Buffer;
  used?: number;
}

/**
 * Blobs read by the native object reader (native/object-reader), answered to the sink in the order
 * they were requested, as BlobStream answers them, until every request has come: then each read
 * call's objects as soon as it is done (nextToDeliver). Whatever the reader leaves to git (an object it
 * did not find, a damaged or very large one) is asked of a `git cat-file --batch` opened on the first
 * such object: git's answer, missing or not, is the one given, and the answers after it wait for it.
 */
export class NativeBlobStream implements BlobReader {
  private readonly guard: HandlerGuard;
  /** Requests not yet in a read call: those from `queueHead` on. */
  private queuedIds: string[] = [];
  private queuedIndexes: number[] = [];
  private queueHead = 0;
  /** Read calls made and not yet answered to the sink, oldest first. */
  private readonly batches: Batch[] = [];
  /** Answer buffers free for the next batch. */
  private readonly spareBuffers: Buffer[] = [];
  private readsUnderWay = 0;
  /** Batches holding an answer buffer (being read, or awaiting delivery). */
  private buffersInUse = 0;
  /** The batch being answered, and where: its next answer's byte and number. */
  private delivering: Batch | null = null;
  private answerAt = 0;
  private answerNumber = 0;
  private requested = 0;
  private answered = 0;
  /** Delivery waits for git's answer to an object left to it. */
  private waitingForGit = false;
  private fallback: Promise<BlobStream> | undefined;
  private waiting: { limit: number; ready: () => void } | null = null;
  private finishing: { resolve: () => void; reject: (error: unknown) => void } | null = null;
  private readonly done: Promise<void>;
  private stopped = false;
  private closed = false;
  private finishCalled = false;

  static async open(git: GitRunner, sink: BlobSink): Promise<NativeBlobStream | null> {
    const opened = await openObjectDatabase(git, 'blobs');
    return opened === null ? null : new NativeBlobStream(git, sink, opened.reader, opened.db);
  }

  private constructor(
    private readonly git: GitRunner,
    private readonly sink: BlobSink,
    private readonly reader: ObjectReaderModule,
    private readonly db: ObjectDatabase,
  ) {
    // A throw from the sink is taken up after each guarded step (fail, with what it threw).
    this.guard = new HandlerGuard(() => {});
    this.done = new Promise((resolve, reject) => {
      this.finishing = { resolve, reject };
    });
    // A failure before finish() is called is reported by finish(), not as an unhandled rejection.
    this.done.catch(() => {});
    git.signal?.addEventListener('abort', () => this.fail(new Error('the scan was stopped')), { once: true });
  }

  request(id: string, index: number): void {
    this.queuedIds.push(id);
    this.queuedIndexes.push(index);
    this.requested++;
  }

  send(): void {
    // First the rests of batches whose buffer filled up (continueFilled), in their order...
    for (const batch of this.batches) {
      if (this.stopped || this.readsUnderWay >= READS_AT_ONCE || this.buffersInUse >= BATCHES_AT_ONCE) return;
      if (batch.out === undefined) {
        batch.out = this.spareBuffers.pop() ?? Buffer.allocUnsafeSlow(ANSWER_BUFFER_SIZE);
        this.buffersInUse++;
        this.startRead(batch);
      }
    }
    // ...then new batches of the requests queued.
    while (
      !this.stopped &&
      this.readsUnderWay < READS_AT_ONCE &&
      this.buffersInUse < BATCHES_AT_ONCE &&
      this.queued > 0
    ) {
      const end = Math.min(this.queueHead + IDS_PER_READ, this.queuedIds.length);
      const ids = Buffer.from(this.queuedIds.slice(this.queueHead, end).join(''), 'hex');
      const indexes = Int32Array.from(this.queuedIndexes.slice(this.queueHead, end));
      this.queueHead = end;
      if (this.queueHead === this.queuedIds.length) {
        this.queuedIds = [];
        this.queuedIndexes = [];
        this.queueHead = 0;
      }
      const out = this.spareBuffers.pop() ?? Buffer.allocUnsafeSlow(ANSWER_BUFFER_SIZE);
      this.buffersInUse++;
      const batch: Batch = { ids, indexes, out };
      this.batches.push(batch);
      this.startRead(batch);
    }
  }

  /**
   * A read whose buffer filled before its last id: the ids it did not answer become a batch of their
   * own, next in delivery order, read as soon as a buffer and a thread are free rather than once
   * this buffer is delivered. eslint's blobs average 24 KB, so most reads of 256 ids filled their
   * 2 MB two or three times; once the listing had ended, the reading waited on delivery and kept
   * less than one core busy.
   */
  private continueFilled(batch: Batch): void {
    const answered = answersIn(batch.out!, batch.used!);
    if (answered === 0 || answered >= batch.indexes.length) return;
    const rest: Batch = { ids: batch.ids.subarray(answered * 20), indexes: batch.indexes.subarray(answered) };
    batch.ids = batch.ids.subarray(0, answered * 20);
    batch.indexes = batch.indexes.subarray(0, answered);
    this.batches.splice(this.batches.indexOf(batch) + 1, 0, rest);
  }

  private get queued(): number {
    return this.queuedIds.length - this.queueHead;
  }

  private startRead(batch: Batch): void {
    this.readsUnderWay++;
    this.reader.read(this.db, batch.ids, MAX_IN_PROCESS_SIZE, batch.out!, (error, used) => {
      this.readsUnderWay--;
      if (this.stopped) return;
      if (error !== null || used === undefined) {
        this.fail(error ?? new Error('the object reader gave no answers'));
        return;
      }
      batch.used = used;
      // The rest of a filled batch is read while this thread delivers what it holds.
      this.continueFilled(batch);
      this.send();
      this.guard.run(() => this.deliver());
      if (this.guard.failed) this.fail(this.guard.error);
      this.send();
    });
  }

  get pending(): number {
    return this.requested - this.answered;
  }

  whenPendingAtMost(limit: number, ready: () => void): void {
    if (this.pending <= limit || this.stopped) ready();
    else this.waiting = { limit, ready };
  }

  finish(): Promise<void> {
    this.finishCalled = true;
    this.send();
    this.settleIfDone();
    return this.done;
  }

  abort(): void {
    this.fail(new Error('the blob reading was stopped'));
    this.done.catch(() => {}); // nobody awaits an aborted stream
  }

  /** Answers the objects of batches whose reads are done to the sink, as far as they have come. */
  private deliver(): void {
    while (!this.waitingForGit && !this.stopped) {
      const batch = this.delivering ?? this.nextToDeliver();
      if (batch?.used === undefined) break;
      this.delivering = batch;
      if (this.answerAt >= batch.used) {
        const answered = this.answerNumber;
        this.answerAt = 0;
        this.answerNumber = 0;
        this.delivering = null;
        if (answered < batch.indexes.length) {
          // The buffer filled up: the rest of the batch's ids are read again, into the same buffer.
          batch.ids = batch.ids.subarray(answered * 20);
          batch.indexes = batch.indexes.subarray(answered);
          batch.used = undefined;
          this.startRead(batch);
          continue;
        }
        this.batches.splice(this.batches.indexOf(batch), 1);
        this.spareBuffers.push(batch.out!);
        this.buffersInUse--;
        this.send(); // its buffer is free for the next batch
        continue;
      }
      const answers = batch.out!;
      const status = answers[this.answerAt]!;
      const size = answers.readUInt32LE(this.answerAt + 2);
      const index = batch.indexes[this.answerNumber]!;
      this.answerAt += 6;
      this.answerNumber++;
      if (status === FOUND) {
        this.sink.start(index, size);
        if (size > 0) this.sink.chunk(answers.subarray(this.answerAt, this.answerAt + size));
        this.answerAt += size;
        this.sink.end();
        this.answered++;
        this.releaseWaiting();
        continue;
      }
      // Not found, or left to git: git answers it, and the rest wait.
      const id = batch.ids.toString('hex', (this.answerNumber - 1) * 20, this.answerNumber * 20);
      this.askGit(id, index);
    }
    this.settleIfDone();
  }

  /**
   * The batch to answer next: the oldest, while requests may still come; once they have all come
   * (finish), the oldest whose read is done. Then the reading is all that is left, and a batch still
   * being read no longer holds back the younger ones behind it: on eslint, after its listing, all
   * buffers but that batch's most often held answers waiting their turn and one core stayed idle.
   * Before, the listing is what the scan waits for, and reads freed sooner to run beside it slowed it
   * (rails, git/git). The sink (the gate) takes versions in any order; within a batch they come in
   * the order asked.
   */
  private nextToDeliver(): Batch | undefined {
    return this.finishCalled ? this.batches.find((b) => b.used !== undefined) : this.batches[0];
  }

  private askGit(id: string, index: number): void {
    this.waitingForGit = true;
    this.fallback ??= this.openFallback();
    this.fallback.then(
      (git) => {
        git.request(id, index);
        git.send();
      },
      () => {}, // openFallback fails the stream
    );
  }

  /**
   * The `git cat-file --batch` that answers what the reader leaves to git. The sink's calls run under
   * this stream's guard, so that one that throws stops this stream; git's end before its answer does
   * too.
   */
  private openFallback(): Promise<BlobStream> {
    const sink = this.sink;
    const guarded = (step: () => void) => {
      this.guard.run(step);
      if (this.guard.failed) this.fail(this.guard.error);
    };
    const relay: BlobSink = {
      start: (i, size) => guarded(() => sink.start(i, size)),
      chunk: (data) => guarded(() => sink.chunk(data)),
      end: () =>
        guarded(() => {
          sink.end();
          this.gitAnswered();
        }),
      missing: (i) =>
        guarded(() => {
          sink.missing(i);
          this.gitAnswered();
        }),
    };
    const opened = BlobStream.open(this.git, relay);
    opened.then(
      (git) =>
        git.closed.then(
          () => {
            if (this.waitingForGit) this.fail(new Error('git cat-file --batch ended before answering'));
          },
          (error) => this.fail(error),
        ),
      (error) => this.fail(error),
    );
    return opened;
  }

  /** git has answered the object delivery waited for: delivery goes on. */
  private gitAnswered(): void {
    if (!this.waitingForGit) return;
    this.waitingForGit = false;
    this.answered++;
    this.releaseWaiting();
    this.deliver();
  }

  private releaseWaiting(): void {
    if (this.waiting !== null && this.pending <= this.waiting.limit) {
      const { ready } = this.waiting;
      this.waiting = null;
      ready();
    }
  }

  private settleIfDone(): void {
    if (this.stopped || !this.finishCalled || this.finishing === null || this.pending > 0 || this.queued > 0)
      return;
    const { resolve, reject } = this.finishing;
    this.finishing = null;
    this.close();
    if (this.fallback === undefined) resolve();
    else this.fallback.then((git) => git.finish()).then(resolve, reject);
  }

  private fail(error: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    this.close();
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.ready();
    const finishing = this.finishing;
    this.finishing = null;
    if (this.fallback === undefined) {
      finishing?.reject(error);
      return;
    }
    // Settles once git has gone too: nothing of the scan's is left running after it.
    this.fallback
      .then((git) => {
        git.abort();
        return git.closed;
      })
      .catch(() => {})
      .then(() => finishing?.reject(error));
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.reader.close(this.db);
    this.spareBuffers.length = 0; // 6 MB the rest of the scan has no use for
  }
}
