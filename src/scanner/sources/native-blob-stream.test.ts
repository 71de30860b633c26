import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { liveChildren } from '../../../test/helpers/child-processes.js';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { objectReaderForTests } from '../../../test/helpers/object-reader.js';
import { type BlobSink, BlobStream } from './blob-stream.js';
import { NativeBlobStream, openBlobReader } from './native-blob-stream.js';
import { loadObjectReader } from './native-module.js';

const { skip: unavailable } = objectReaderForTests('native-blob-stream.test.ts');

let repo: TestRepo;
const ids: Record<string, string> = {};
const MISSING = 'ab'.repeat(20);

beforeAll(() => {
  repo = new TestRepo();
  const files: Record<string, string | Buffer> = { 'a.txt': 'one\n', 'empty.txt': '' };
  // 24 files of 300 KB: more than one 4 MB answer buffer holds, so a read stops early and the rest
  // of its ids are asked again.
  for (let k = 0; k < 24; k++) files[`mid-${k}.bin`] = randomBytes(300_000).toString('base64');
  // Larger than an answer buffer: left to git, which streams it.
  files['big.bin'] = randomBytes(5_000_000);
  repo.commitFiles(files, 'first');
  repo.commitFiles({ 'a.txt': 'one\ntwo\n' }, 'second');
  repo.git('repack', '-adq');
  repo.commitFiles({ 'loose.txt': 'still loose\n' }, 'third');
  for (const path of Object.keys(files).concat('loose.txt'))
    ids[path] = repo.git('rev-parse', `HEAD:${path}`);
  ids['a.txt@1'] = repo.git('rev-parse', 'HEAD~2:a.txt');
});
afterAll(() => repo.cleanup());

/** What a sink is told, each object's chunks joined (the two readers cut them differently). */
function recordingSink(): { sink: BlobSink; seen: string[] } {
  const seen: string[] = [];
  let parts: Buffer[] = [];
  const sink: BlobSink = {
    start: (index, size) => {
      seen.push(`start ${index} ${size}`);
      parts = [];
    },
    chunk: (data) => parts.push(Buffer.from(data)),
    end: () =>
      seen.push(
        `content ${Buffer.concat(parts).toString('base64').slice(0, 40)} ${Buffer.concat(parts).length}`,
      ),
    missing: (index) => seen.push(`missing ${index}`),
  };
  return { sink, seen };
}

const git = () => ({ binary: 'git', repo: repo.dir });

/** The objects' numbers in the order a recording sink was given them. */
const starts = (seen: readonly string[]) =>
  seen.filter((line) => line.startsWith('start')).map((line) => Number(line.split(' ')[1]));

/** A recording sink's lines by object: each `start` with the `content` after it, or `missing`. */
function byObject(seen: readonly string[]): Map<number, string> {
  const answers = new Map<number, string>();
  for (let at = 0; at < seen.length; at++) {
    const [kind, index] = seen[at]!.split(' ');
    if (kind === 'missing') answers.set(Number(index), 'missing');
    if (kind === 'start') answers.set(Number(index), `${seen[at]} ${seen[++at]}`);
  }
  return answers;
}

describe.skipIf(unavailable)('NativeBlobStream', () => {
  it('is what openBlobReader gives where the native reader loads', async () => {
    const stream = await openBlobReader(git(), recordingSink().sink);
    expect(stream).toBeInstanceOf(NativeBlobStream);
    await stream.finish();
  });

  it('answers as git cat-file does: found, missing, larger than its buffer, loose', async () => {
    const order = [
      'a.txt',
      MISSING,
      'big.bin',
      ...Array.from({ length: 24 }, (_, k) => `mid-${k}.bin`),
      'empty.txt',
      'a.txt@1',
      'loose.txt',
      'a.txt',
    ];
    const ask = async (stream: {
      request(id: string, index: number): void;
      send?(): void;
      finish(): Promise<void>;
    }) => {
      for (const [index, name] of order.entries()) stream.request(ids[name] ?? name, index);
      stream.send?.();
      await stream.finish();
    };
    const fromGit = recordingSink();
    await ask(await BlobStream.open(git(), fromGit.sink));
    const native = recordingSink();
    const stream = await NativeBlobStream.open(git(), native.sink);
    expect(stream).not.toBeNull();
    await ask(stream!);
    // Each object's answer the same; their order is the next tests' (batches may be answered out
    // of order once every request has come).
    expect(byObject(native.seen)).toEqual(byObject(fromGit.seen));
    expect(native.seen).toHaveLength(fromGit.seen.length);
    expect(native.seen).toContain('missing 1');
    expect(native.seen).toContain('start 2 5000000');
    expect(liveChildren().filter((name) => name === 'git')).toEqual([]);
  });

  /**
   * 300 requests (two read calls: 256 ids, then 44), the first call's answer held back until the
   * second's has come and the event loop has run: which objects the sink was given meanwhile, then
   * the order of all. `finishFirst`: every request has come (finish) before the reads start.
   */
  const withFirstReadLate = async (finishFirst: boolean) => {
    const reader = loadObjectReader()!;
    const read = reader.read.bind(reader);
    let calls = 0;
    let secondAnswered: () => void = () => {};
    const second = new Promise<void>((resolve) => {
      secondAnswered = resolve;
    });
    const spy = vi.spyOn(reader, 'read').mockImplementation((db, batchIds, max, out, done) => {
      const call = calls++;
      read(db, batchIds, max, out, (error, used) => {
        if (call !== 0) {
          done(error, used);
          if (call === 1) secondAnswered();
          return;
        }
        void second.then(() => setImmediate(() => done(error, used)));
      });
    });
    try {
      const { sink, seen } = recordingSink();
      const stream = (await NativeBlobStream.open(git(), sink))!;
      for (let k = 0; k < 300; k++) stream.request(ids['a.txt']!, k);
      let finished: Promise<void> | undefined;
      if (finishFirst) finished = stream.finish();
      else stream.send();
      await second;
      const startsMeanwhile = starts(seen);
      await (finished ?? stream.finish());
      return { startsMeanwhile, starts: starts(seen), calls };
    } finally {
      spy.mockRestore();
    }
  };

  it('answers in the order asked while requests may still come, a later read waiting for an earlier', async () => {
    const seen = await withFirstReadLate(false);
    expect(seen.calls).toBe(2);
    expect(seen.startsMeanwhile).toEqual([]);
    expect(seen.starts).toEqual(Array.from({ length: 300 }, (_, k) => k));
  });

  it('once every request has come, answers a read that is done before an earlier one still under way', async () => {
    const seen = await withFirstReadLate(true);
    expect(seen.calls).toBe(2);
    // The second call's objects first, in the order asked; then the first call's.
    const second = Array.from({ length: 44 }, (_, k) => 256 + k);
    expect(seen.startsMeanwhile).toEqual(second);
    expect(seen.starts).toEqual([...second, ...Array.from({ length: 256 }, (_, k) => k)]);
  });

  it('reads the rest of a batch whose buffer filled while it delivers what the buffer holds', async () => {
    const reader = loadObjectReader()!;
    const events: string[] = [];
    const read = reader.read.bind(reader);
    const spy = vi.spyOn(reader, 'read').mockImplementation((db, batchIds, max, out, done) => {
      events.push(`read ${batchIds.length / 20}`);
      read(db, batchIds, max, out, (error, used) => {
        events.push('answered');
        done(error, used);
      });
    });
    try {
      const { sink, seen } = recordingSink();
      const stream = (await NativeBlobStream.open(git(), {
        ...sink,
        start: (i, size) => {
          events.push('delivered');
          sink.start(i, size);
        },
      }))!;
      for (let k = 0; k < 24; k++) stream.request(ids[`mid-${k}.bin`]!, k);
      stream.send();
      await stream.finish();
      expect(starts(seen)).toEqual(Array.from({ length: 24 }, (_, k) => k));
      // One read of the 24 (400 KB each), its 2 MB buffer full after a few: the next read, of the
      // rest, starts before the first answer is delivered.
      const first = events.indexOf('answered');
      expect(events.slice(0, first)).toEqual(['read 24']);
      expect(events[first + 1]).toMatch(/^read (1[0-9]|2[0-3])$/);
      expect(events[first + 2]).toBe('delivered');
    } finally {
      spy.mockRestore();
    }
  });

  it('tells whoever waits when few enough answers are pending', async () => {
    const { sink, seen } = recordingSink();
    const stream = (await NativeBlobStream.open(git(), sink))!;
    for (let k = 0; k < 2_000; k++) stream.request(ids['a.txt']!, k);
    expect(stream.pending).toBe(2_000);
    const released = new Promise<void>((resolve) => stream.whenPendingAtMost(100, resolve));
    stream.send();
    await released;
    expect(stream.pending).toBeLessThanOrEqual(100);
    await stream.finish();
    expect(stream.pending).toBe(0);
    expect(seen.filter((line) => line.startsWith('start'))).toHaveLength(2_000);
  });

  it('goes on after an answer from git, however many requests wait behind it', async () => {
    const { sink, seen } = recordingSink();
    const stream = (await NativeBlobStream.open(git(), sink))!;
    // More than the batches under way hold: the rest wait in the queue while git answers.
    for (let k = 0; k < 3_000; k++) stream.request(k % 1_000 === 0 ? MISSING : ids['a.txt']!, k);
    await stream.finish();
    // Each missing one answered once; in any order across batches, as every request came before the
    // reads (finish: see the two tests of order above).
    expect(seen.filter((line) => line.startsWith('missing')).sort()).toEqual([
      'missing 0',
      'missing 1000',
      'missing 2000',
    ]);
    expect(seen.filter((line) => line.startsWith('start'))).toHaveLength(2_997);
  });

  it('rejects with what the sink threw, for an object it read and for one git answered', async () => {
    for (const failing of ['a.txt', MISSING]) {
      const failure = new Error(`the sink failed on ${failing}`);
      const sink: BlobSink = {
        start: () => {
          if (failing === 'a.txt') throw failure;
        },
        chunk: () => {},
        end: () => {},
        missing: () => {
          throw failure;
        },
      };
      const stream = (await NativeBlobStream.open(git(), sink))!;
      stream.request(ids[failing] ?? failing, 0);
      stream.request(ids['loose.txt']!, 1);
      stream.send();
      await expect(stream.finish()).rejects.toBe(failure);
      expect(liveChildren().filter((name) => name === 'git')).toEqual([]);
    }
  });

  it('once aborted, settles and lets whoever waits go on', async () => {
    const stream = (await NativeBlobStream.open(git(), recordingSink().sink))!;
    for (let k = 0; k < 3; k++) stream.request(ids['a.txt']!, k);
    stream.abort();
    const released = new Promise<void>((resolve) => stream.whenPendingAtMost(0, resolve));
    await expect(stream.finish()).rejects.toThrow(/stopped/);
    await released;
  });

  it('stops when the scan is stopped', async () => {
    const controller = new AbortController();
    const stream = (await NativeBlobStream.open(
      { ...git(), signal: controller.signal },
      recordingSink().sink,
    ))!;
    stream.request(MISSING, 0); // asked of git, which is killed with the scan
    stream.send();
    controller.abort();
    await expect(stream.finish()).rejects.toThrow();
    expect(liveChildren().filter((name) => name === 'git')).toEqual([]);
  });

  it('leaves to git a repository it does not read (SHA-256)', async () => {
    const sha256 = new TestRepo({ objectFormat: 'sha256' });
    try {
      sha256.commitFiles({ 'a.txt': 'x\n' }, 'first');
      expect(
        await NativeBlobStream.open({ binary: 'git', repo: sha256.dir }, recordingSink().sink),
      ).toBeNull();
    } finally {
      sha256.cleanup();
    }
  });
});
