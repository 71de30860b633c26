import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCi } from '../../../test/helpers/ci.js';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { type BlobSink, BlobStream } from './blob-stream.js';
import { collectGarbageIfGrown, collectionFor, releaseUnusedMemory } from './free-memory.js';

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

describe('collectionFor', () => {
  const calls = (v8Version: string) => {
    const made: unknown[][] = [];
    collectionFor((...args: unknown[]) => made.push(args), v8Version)();
    return made;
  };

  it('asks V8 13 and later for its memory-reducing collection, which gives its pooled pages back', () => {
    const reducing = [[{ type: 'major', execution: 'sync', flavor: 'last-resort' }]];
    expect(calls('13.6.233.17-node.53')).toEqual(reducing);
    expect(calls('14.1.0')).toEqual(reducing);
  });

  it('calls an older V8 without arguments (Node 20 collected nothing when given options)', () => {
    expect(calls('11.3.244.8-node.33')).toEqual([[]]);
    expect(calls('12.4.254.21-node.33')).toEqual([[]]);
  });
});

/**
 * What a scan gives back between phases, in the Node that runs it: ours (the CLI's) and the pinned
 * one inside the single executable (build/node-base.json; `npm run build:binary` fetches it), each
 * running the built module. 150 MB of small objects are made and dropped; after releaseUnusedMemory
 * (Node 20's V8 unmaps freed pages on a thread of its own, within about 200 ms) the process must hold
 * little more than before them: 10 MB more on Node 24, 37 on Node 20. With a plain collection Node 24
 * kept 180 MB of them resident, however long it was waited for.
 */
describe('releaseUnusedMemory in a process of its own', () => {
  const root = join(import.meta.dirname, '..', '..', '..');
  const built = join(root, 'dist', 'scanner', 'sources', 'free-memory.js');
  const pin = JSON.parse(readFileSync(join(root, 'build', 'node-base.json'), 'utf8'));
  const executableNode = join(root, pin.cache, pin.version, 'package', 'bin', 'node');
  const script = `
    const { releaseUnusedMemory } = await import(${JSON.stringify(pathToFileURL(built).href)});
    const resident = () => Number(/VmRSS:\\s+(\\d+)/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'))[1]) >> 10;
    await releaseUnusedMemory();
    const before = resident();
    let made = [];
    for (let i = 0; i < 1_500_000; i++) made.push({ n: i, s: 'item ' + i });
    const full = resident();
    made = undefined;
    await releaseUnusedMemory();
    // Node 20's unmapping thread may lag on a loaded machine: waited for, up to 5 s.
    for (let waited = 0; resident() - before >= 60 && waited < 5000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    console.log(JSON.stringify({ before, full, after: resident() }));
  `;
  const run = (node: string) => {
    const ran = spawnSync(node, ['--input-type=commonjs', '-e', `(async () => {${script}})()`], {
      encoding: 'utf8',
    });
    expect(ran.stderr).toBe('');
    return JSON.parse(ran.stdout) as { before: number; full: number; after: number };
  };
  // Skipped, with a warning, where nothing is built; CI builds both first and must run them.
  const skip = (!existsSync(built) || !existsSync(executableNode)) && !isCi();
  if (skip) {
    console.warn(
      'free-memory.test.ts: the process tests skipped: run npm run build and npm run build:binary',
    );
  }

  it.skipIf(skip).each([
    ['this Node', process.execPath],
    [`Node ${pin.version} (the executable's)`, executableNode],
  ])('gives back what a dropped heap held, in %s', (_name, node) => {
    const { before, full, after } = run(node);
    expect(full - before).toBeGreaterThan(100);
    expect(after - before).toBeLessThan(60);
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
