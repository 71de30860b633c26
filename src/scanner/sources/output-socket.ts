import { randomBytes, timingSafeEqual } from 'node:crypto';
import net from 'node:net';

/** How long the socket pair may take to connect before the caller falls back to a pipe. */
const CONNECT_TIMEOUT_MS = 5000;
const TOKEN_BYTES = 32;
/** What each read may fill: the most one read of a Unix socket gives at a time here. */
const READ_BUFFER = 256 << 10;

/**
 * A connected pair of Unix sockets for a child's standard output: `writer` to hand the child,
 * `reader` this process's end, read into one buffer of its own (net's `onread`), so that reading
 * allocates nothing per read. A child's 'pipe' output gets a new 64 KB buffer for every read: for
 * `git cat-file --batch` on a 24,000-commit history, 20,000 buffers, 1.3 GB that the garbage
 * collector has to find (Node 24, which the single executable runs, let 76 MB of them pile up).
 */
export interface OutputSocket {
  writer: net.Socket;
  reader: net.Socket;
  /** Resolves when the reader has seen the end of the output (every writer has closed) or is destroyed. */
  ended: Promise<void>;
}

/**
 * Makes the pair through a listening socket in Linux's abstract namespace, which has no file: a
 * random name, and the first 32 bytes the connection brings must be a random token only this
 * process knows, so a local process that finds the name (it is listed in /proc/net/unix) and
 * connects first is never handed the child's output. `onData` gets each read's bytes, which are only
 * valid until it returns. Null where no such socket can be made (not Linux); the caller uses a pipe.
 */
export async function openOutputSocket(onData: (chunk: Buffer) => void): Promise<OutputSocket | null> {
  if (process.platform !== 'linux') return null;
  const name = `\0svc-${randomBytes(16).toString('hex')}`;
  const token = randomBytes(TOKEN_BYTES);
  const server = net.createServer();
  const pending = new Set<net.Socket>();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(name, () => resolve());
    });
  } catch {
    return null;
  }
  const buffer = Buffer.allocUnsafe(READ_BUFFER);
  const reader = net.connect({
    path: name,
    onread: {
      buffer,
      callback: (read: number) => {
        onData(buffer.subarray(0, read));
        return true;
      },
    },
  });
  const ended = new Promise<void>((resolve, reject) => {
    reader.once('end', resolve);
    reader.once('error', reject);
    // Destroyed by us (the caller gave up on the output): no 'end' will come.
    reader.once('close', () => resolve());
  });
  ended.catch(() => {}); // the caller awaits it; an error before then is not left unhandled
  reader.once('connect', () => reader.write(token));
  const writer = new Promise<net.Socket | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), CONNECT_TIMEOUT_MS);
    reader.once('error', () => resolve(null));
    server.on('connection', (socket) => {
      pending.add(socket);
      socket.on('error', () => socket.destroy());
      let received = Buffer.alloc(0);
      const onToken = (data: Buffer) => {
        received = Buffer.concat([received, data]);
        if (received.length < TOKEN_BYTES) return;
        socket.off('data', onToken);
        socket.pause();
        pending.delete(socket);
        if (received.length === TOKEN_BYTES && timingSafeEqual(received, token)) {
          clearTimeout(timer);
          resolve(socket);
        } else {
          socket.destroy();
        }
      };
      socket.on('data', onToken);
    });
  });
  const ours = await writer;
  server.close();
  for (const socket of pending) socket.destroy();
  if (ours === null) {
    reader.destroy();
    return null;
  }
  return { writer: ours, reader, ended };
}
