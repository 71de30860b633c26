import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
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

const requestStarts = new WeakMap<Socket, Buffer>();

type Fetch = Parameters<typeof createAdaptorServer>[0]['fetch'];

/**
 * Serves `app` on a socket with the service's limits. A request Node refuses before the app sees it
 * (headers too large, malformed, too slow) still gets the product's answer: the JSON error envelope,
 * or for a hook endpoint an allow in the agent's format (hooks never block a command).
 */
export async function serveApp(app: { fetch: Fetch }, options: ListenOptions): Promise<Server> {
  const limits = {
    maxHeaderBytes: options.maxHeaderBytes ?? SERVER_LIMITS.maxHeaderBytes,
    headersTimeoutMs: options.headersTimeoutMs ?? SERVER_LIMITS.headersTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs ?? SERVER_LIMITS.requestTimeoutMs,
  };
  const server = createAdaptorServer({
    fetch: app.fetch,
    hostname: options.hostname,
    serverOptions: {
      maxHeaderSize: limits.maxHeaderBytes,
      // Node checks the two timeouts on this period (30 s by default), so they would be late by that much.
      connectionsCheckingInterval: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4,
    },
  }) as Server;
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  // Node hands a client error only the packet that broke the parser, not the request line, so the
  // start of each request a connection sends is kept to tell a hook request from the rest.
  const keepStart = (socket: Socket) =>
    socket.once('data', (chunk: Buffer) => requestStarts.set(socket, chunk.subarray(0, 2048)));
  server.on('connection', keepStart);
  server.on('request', (request: IncomingMessage, response: ServerResponse) =>
    response.once('finish', () => keepStart(request.socket)),
  );
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) =>
    answerClientError(error, socket, limits.maxHeaderBytes),
  );
  server.listen(options.port, options.hostname);
  await once(server, 'listening');
  return server;
}

function answerClientError(
  error: NodeJS.ErrnoException & { rawPacket?: Buffer },
  socket: Socket,
  maxHeaderBytes: number,
): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const path = requestPath(requestStarts.get(socket));
  const [status, reason, why] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', `request headers over ${maxHeaderBytes / 1024} KiB`]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'the request was not received in time']
        : [400, 'Bad Request', 'malformed HTTP request'];
  const hook = path === '/api/hooks/agent-a' ? agentA : path === '/api/hooks/agent-b' ? agentB : null;
  const body = JSON.stringify(
    hook === null ? { error: why } : hook.answer('allow', `svc: command not checked: ${why}`),
  );
  const [code, text] = hook === null ? [status, reason] : [200, 'OK'];
  socket.end(
    `HTTP/1.1 ${code} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The path of the request line the connection last started, when it got that far. */
function requestPath(raw: Buffer | undefined): string | null {
  if (raw === undefined) return null;
  const line = raw.toString('latin1').split('\r\n', 1)[0] ?? '';
  const target = line.split(' ')[1];
  return target === undefined ? null : target.split('?')[0]!;
}
