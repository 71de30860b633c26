import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveChildren } from '../../../test/helpers/child-processes.js';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { type BlobSink, BlobStream } from './blob-stream.js';

let repo: TestRepo;
beforeAll(() => {
  repo = new TestRepo();
  repo.commitFiles({ 'a.txt': 'one\n', 'b.txt': 'two\n' }, 'first');
});
afterAll(() => repo.cleanup());

const blobId = (path: string) => repo.git('rev-parse', `HEAD:${path}`);

describe('BlobStream', () => {
  it('hands on each answer in the order asked, by the number the requester gave it', async () => {
    const seen: string[] = [];
    const sink: BlobSink = {
      start: (index, size) => seen.push(`start ${index} ${size}`),
      chunk: (data) => seen.push(data.toString()),
      end: () => seen.push('end'),
      missing: (index) => seen.push(`missing ${index}`),
    };
    const stream = await BlobStream.open({ binary: 'git', repo: repo.dir }, sink);
    stream.request(blobId('b.txt'), 7);
    stream.request('0'.repeat(40), 8);
    stream.request(blobId('a.txt'), 9);
    await stream.finish();
    expect(seen).toEqual(['start 7 4', 'two\n', 'end', 'missing 8', 'start 9 4', 'one\n', 'end']);
  });

  it('rejects with what the sink threw, and leaves no git running', async () => {
    const failure = new Error('the sink failed');
    const sink: BlobSink = {
      start: () => {
        throw failure;
      },
      chunk: () => {},
      end: () => {},
      missing: () => {},
    };
    const stream = await BlobStream.open({ binary: 'git', repo: repo.dir }, sink);
    stream.request(blobId('a.txt'), 0);
    await expect(stream.finish()).rejects.toBe(failure);
    expect(liveChildren().filter((name) => name === 'git')).toEqual([]);
  });

  it('lets whoever waits for answers go on once git has ended', async () => {
    const sink: BlobSink = { start: () => {}, chunk: () => {}, end: () => {}, missing: () => {} };
    const stream = await BlobStream.open({ binary: 'git', repo: repo.dir }, sink);
    for (let k = 0; k < 3; k++) stream.request(blobId('a.txt'), k);
    stream.abort(); // before anything was written: no answer will ever come
    const released = new Promise<void>((resolve) => stream.whenPendingAtMost(0, resolve));
    await expect(stream.finish()).rejects.toThrow();
    await released;
    expect(stream.pending).toBe(3);
  });

  it('once aborted, ends git and settles', async () => {
    const sink: BlobSink = { start: () => {}, chunk: () => {}, end: () => {}, missing: () => {} };
    const stream = await BlobStream.open({ binary: 'git', repo: repo.dir }, sink);
    stream.request(blobId('a.txt'), 0);
    (stream as unknown as { abort(): void }).abort?.();
    await expect(stream.finish()).rejects.toThrow();
    expect(liveChildren().filter((name) => name === 'git')).toEqual([]);
  });
});
