import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import type { BlobSink } from './blob-stream.js';
import { BlobStream } from './blob-stream.js';
import { openOutputSocket } from './output-socket.js';

const onLinux = process.platform === 'linux';

/** Runs a child that writes `bytes` to the socket's writer, and collects what the reader gets. */
async function throughSocket(bytes: Buffer): Promise<{ received: Buffer; writer: net.Socket }> {
  const chunks: Buffer[] = [];
  const output = await openOutputSocket((chunk) => chunks.push(Buffer.from(chunk)));
  if (output === null) throw new Error('no socket');
  const child = spawn(process.execPath, ['-e', 'process.stdin.pipe(process.stdout)'], {
    stdio: ['pipe', output.writer, 'inherit'],
  });
  output.writer.destroy();
  child.stdin!.end(bytes);
  await output.ended;
  return { received: Buffer.concat(chunks), writer: output.writer };
}

afterEach(() => vi.restoreAllMocks());

const digest = (bytes: Buffer) => `${bytes.length} ${createHash('sha256').update(bytes).digest('hex')}`;

describe.runIf(onLinux)('openOutputSocket', () => {
  it("hands on a child's whole output through its one buffer, copied out by the reader in time", async () => {
    const bytes = randomBytes(3 << 20); // many reads of the reader's buffer
    const { received } = await throughSocket(bytes);
    expect(received.equals(bytes)).toBe(true);
  });

  it('never hands the output to a connection that does not bring the token', async () => {
    // Local processes can read the listening name from /proc/net/unix: here two connect before
    // ours does, one with a wrong token of the right length, one with none.
    const connect = net.connect;
    const strangers: net.Socket[] = [];
    const heard: Buffer[] = [];
    vi.spyOn(net, 'connect').mockImplementation(((options: net.NetConnectOpts) => {
      const path = (options as net.IpcNetConnectOpts).path;
      for (const token of [randomBytes(32), Buffer.alloc(0)]) {
        const stranger = connect({ path });
        stranger.on('data', (data) => heard.push(data));
        stranger.on('error', () => {});
        stranger.write(token);
        strangers.push(stranger);
      }
      return connect(options);
    }) as typeof net.connect);
    const { received } = await throughSocket(Buffer.from('the output'));
    expect(received.toString()).toBe('the output');
    await Promise.all(
      strangers.map((s) => (s.closed ? undefined : new Promise((resolve) => s.once('close', resolve)))),
    );
    expect(heard).toEqual([]);
  });
});

describe('BlobStream', () => {
  it('reads the same contents through the socket and, where there is none, through a pipe', async () => {
    const repo = new TestRepo();
    try {
      const contents = [Buffer.from('first\n'), randomBytes(700_000), Buffer.from('')];
      const ids = contents.map((input) =>
        execFileSync('git', ['-C', repo.dir, 'hash-object', '-w', '--stdin'], {
          input,
          encoding: 'latin1',
        }).trim(),
      );
      const read = async () => {
        const got = new Map<number, Buffer[]>();
        let current = -1;
        const sink: BlobSink = {
          start: (index) => {
            current = index;
            got.set(index, []);
          },
          chunk: (data) => got.get(current)!.push(Buffer.from(data)),
          end: () => {},
          missing: (index) => got.set(index, [Buffer.from('missing')]),
        };
        const stream = await BlobStream.open({ binary: 'git', repo: repo.dir }, sink);
        for (const [index, id] of ids.entries()) stream.request(id, index);
        stream.request('0'.repeat(40), 3);
        await stream.finish();
        return [...got.entries()].map(([index, parts]) => [index, digest(Buffer.concat(parts))]);
      };
      const expected = [...contents.map((c, i) => [i, digest(c)]), [3, digest(Buffer.from('missing'))]];
      expect(await read()).toEqual(expected);
      const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
      Object.defineProperty(process, 'platform', { ...platform, value: 'darwin' });
      try {
        expect(await read()).toEqual(expected);
      } finally {
        Object.defineProperty(process, 'platform', platform);
      }
    } finally {
      repo.cleanup();
    }
  });
});
