import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { type BlobSink, BlobStream } from './blob-stream.js';
import { collectGarbageIfGrown, releaseUnusedMemory } from './free-memory.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A WeakRef made in a turn of its own: V8 keeps a WeakRef's target alive to the end of the turn. */
async function weakly(make: () => object): Promise<WeakRef<object>> {
  const ref = new WeakRef(make());
  await nextTurn();
  return ref;
}

/** About 40 MB of heap (an array of five million small integers). */
const heapful = () => new Array<number>(5_000_000).fill(1);

describe('releaseUnusedMemory', () => {
  it('collects what nothing holds any more', async () => {
    const ref = await weakly(() => ({ rows: heapful() }));
    await releaseUnusedMemory();
    expect(ref.deref()).toBeUndefined();
  });
});

describe('collectGarbageIfGrown', () => {
  it('collects only once the heap holds 32 MB more than the last collection left', async () => {
    await releaseUnusedMemory();
    const ref = await weakly(() => ({ name: 'garbage' }));
    collectGarbageIfGrown(); // no more than the last collection left: nothing to do
    expect(ref.deref()).toBeDefined();
    await nextTurn(); // deref() kept the target alive to the end of its turn
    const held = heapful(); // 40 MB more
    collectGarbageIfGrown();
    expect(ref.deref()).toBeUndefined();
    expect(held.length).toBe(5_000_000);
  });
});

describe('BlobStream once git has ended', () => {
  let repo: TestRepo;
  beforeAll(() => {
    repo = new TestRepo();
    repo.commitFiles({ 'a.txt': 'one\n' }, 'first');
  });
  afterAll(() => repo.cleanup());

  it('lets its sink go, and all the sink holds, though the stream itself is still held', async () => {
    let stream: BlobStream | undefined;
    const sinkRef = await weakly(() => {
      const sink: BlobSink & { held: number[] } = {
        held: heapful(),
        start: () => {},
        chunk: () => {},
        end: () => {},
        missing: () => {},
      };
      void BlobStream.open({ binary: 'git', repo: repo.dir }, sink).then((opened) => {
        stream = opened;
      });
      return sink;
    });
    while (stream === undefined) await nextTurn();
    stream.request(repo.git('rev-parse', 'HEAD:a.txt'), 0);
    await stream.finish();
    await releaseUnusedMemory();
    expect(stream.pending).toBe(0);
    expect(sinkRef.deref()).toBeUndefined();
  });
});
