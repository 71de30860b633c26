import { once } from 'node:events';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { agentA, agentB } from '../hooks/agents/agents.js';

export interface ListenOptions {
  port: number;
  hostname: string;
  /**
   * Request headers accepted in all. Node's default of 16 KiB is below an identity token near the
   * product's own limit (16 KiB, which answers a clear 401); 64 KiB lets that check be the one that speaks.
   */
  maxHeaderBytes?: number;
  /** Time for a client to send its headers (a slow-loris client is cut off after it). */
  headersTimeoutMs?: number;
  /**
   * Time to receive the whole request, body included: inside the hooks' 15 s client limit, so a body
   * that is declared but never sent holds a connection no longer than a real client would wait.
   */
  requestTimeoutMs?: number;
}

/** A real request arrives in milliseconds; these only bound clients that stall. */
export const SERVER_LIMITS = {
  maxHeaderBytes: 64 * 1024,
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
} as const;

/**
 * Node's own parser refuses headers only past this many bytes. The product's limit (`maxHeaderBytes`)
 * is checked on the parsed request instead, where the path is known, so a hook request over it still
 * gets an allow in its agent's format. Past this cap Node refuses before any path is known.
 */
export const PARSER_HEADER_CAP = 256 * 1024;

/** The response each connection is writing, so a request that stalls mid-body is answered by path. */
const inProgress = new WeakMap<Socket, ServerResponse>();

type Fetch = Parameters<typeof createAdaptorServer>[0]['fetch'];

/**
 * Serves `app` on a socket with the service's limits. A request Node refuses before the app sees it
 * (headers too large, malformed, too slow) still gets the product's answer: the JSON error envelope,
 * or for a hook endpoint an allow in the agent's format (hooks never block a command).
 *
 * Nothing here listens to a socket's `data`: that takes the connection off Node's native parser
 * (a tenth of a hook request's CPU), so the path of a refused request comes from what Node parsed.
 */
export async function serveApp(app: { fetch: Fetch }, options: ListenOptions): Promise<Server> {
  const limits = {
    maxHeaderBytes: options.maxHeaderBytes ?? SERVER_LIMITS.maxHeaderBytes,
    headersTimeoutMs: options.headersTimeoutMs ?? SERVER_LIMITS.headersTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs ?? SERVER_LIMITS.requestTimeoutMs,
  };
  const overLimit = `request headers over ${limits.maxHeaderBytes / 1024} KiB`;
  const fetch: Fetch = (request, env) =>
    headerBytes(env.incoming) > limits.maxHeaderBytes
      ? refusal(env.incoming.url ?? '', 431, overLimit)
      : app.fetch(request, env);
  const server = createAdaptorServer({
    fetch,
    hostname: options.hostname,
    serverOptions: {
      maxHeaderSize: Math.max(PARSER_HEADER_CAP, limits.maxHeaderBytes),
      // Node checks the two timeouts on this period (30 s by default), so they would be late by that much.
      connectionsCheckingInterval: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4,
    },
  }) as Server;
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.on('request', (request: IncomingMessage, response: ServerResponse) =>
    inProgress.set(request.socket, response),
  );
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) =>
    answerClientError(error, socket, overLimit),
  );
  server.listen(options.port, options.hostname);
  await once(server, 'listening');
  return server;
}

/** The request line's target and the headers, counted as Node's parser counts them (names and values). */
function headerBytes(incoming: { url?: string; rawHeaders: string[] }): number {
  let bytes = incoming.url?.length ?? 0;
  for (const part of incoming.rawHeaders) bytes += part.length;
  return bytes;
}

/** The agent whose hook endpoint `path` is, or null for every other path. */
function hookAt(path: string) {
  const bare = path.split('?', 1)[0];
  return bare === '/api/hooks/agent-a' ? agentA : bare === '/api/hooks/agent-b' ? agentB : null;
}

/**
 * The product's answer to a request refused before the app: on a hook endpoint an allow that says
 * why (hooks fail open), anywhere else the error envelope with its status.
 */
function refusalAnswer(path: string, status: number, why: string): { status: number; body: string } {
  const hook = hookAt(path);
  return hook === null
    ? { status, body: JSON.stringify({ error: why }) }
    : { status: 200, body: JSON.stringify(hook.notChecked(why)) };
}

function refusal(path: string, status: number, why: string): Response {
  const answer = refusalAnswer(path, status, why);
  // The body, if any, was not read: the connection closes rather than parse it as the next request.
  return new Response(answer.body, {
    status: answer.status,
    headers: { 'content-type': 'application/json', 'x-content-type-options': 'nosniff', connection: 'close' },
  });
}

/** A request Node's parser refused: answered on the raw socket, which is then closed. */
function answerClientError(
  error: NodeJS.ErrnoException & { rawPacket?: Buffer },
  socket: Socket,
  overLimit: string,
): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, why] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, overLimit]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'the request was not received in time']
        : [400, 'malformed HTTP request'];
  const answer = refusalAnswer(pathOf(error, socket) ?? '', status, why);
  socket.end(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\nContent-Type: application/json\r\n` +
      `X-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(answer.body)}\r\nConnection: close\r\n\r\n${answer.body}`,
  );
}

/**
 * The path of the refused request, when Node got that far: the request being answered on this
 * connection (its body stalled), or a request line inside the packet the parser refused.
 */
function pathOf(error: { rawPacket?: Buffer }, socket: Socket): string | null {
  const response = inProgress.get(socket);
  if (response !== undefined && !response.writableEnded) return response.req.url ?? null;
  const line = error.rawPacket?.toString('latin1', 0, 2048).split('\r\n', 1)[0] ?? '';
  const match = /^[A-Z]+ (\S+) HTTP\/1\.[01]$/.exec(line);
  return match ? match[1]! : null;
}
