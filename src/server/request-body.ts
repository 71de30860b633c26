import { Readable } from 'node:stream';

/**
 * The request body as text, or null past `limit` bytes (read no further than that). Under
 * @hono/node-server it reads the Node request itself (`incoming`, the adapter's binding): going
 * through the web Request made the adapter build one (web streams, an abort signal) for every
 * call, a quarter of a hook call's cost.
 */
export async function readBodyLimited(
  request: Request,
  incoming: unknown,
  limit: number,
): Promise<string | null> {
  const bytes = await readBodyBytesLimited(request, incoming, limit);
  return bytes === null ? null : bytes.toString('utf8');
}

/** The same, as the bytes that came (a signature is over them, not over their decoding). */
export async function readBodyBytesLimited(
  request: Request,
  incoming: unknown,
  limit: number,
): Promise<Buffer | null> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > limit) return null;
  if (incoming instanceof Readable) return readNodeBody(incoming, limit);
  if (request.body === null) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * Reads a Node request body until it ends or passes the limit. Past the limit the rest is drained
 * unread rather than the socket destroyed: a client still sending (a chunked body has no declared
 * length to refuse up front) then reads the answer instead of a connection reset.
 */
function readNodeBody(incoming: Readable, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      incoming.off('data', onData).off('end', onEnd).off('error', reject);
      incoming.on('error', () => {}).resume();
      resolve(null);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    incoming.on('data', onData).once('end', onEnd).once('error', reject);
  });
}
