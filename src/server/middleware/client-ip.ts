import type { Context } from 'hono';

/** What @hono/node-server passes as the app's env: the Node request, whose socket knows the peer. */
export interface NodeBindings {
  incoming?: { socket?: { remoteAddress?: string } };
}

/**
 * The client's address: the socket's peer, unless `trustProxy` hops of reverse proxies are trusted,
 * in which case it is that many entries from the right of `X-Forwarded-For` (entries further left
 * are whatever the client claimed, and are never trusted).
 */
export function clientIp(
  c: Pick<Context<{ Bindings: NodeBindings }>, 'env' | 'req'>,
  trustProxy: number,
): string {
  const peer = c.env?.incoming?.socket?.remoteAddress ?? 'unknown';
  if (trustProxy === 0) return peer;
  const forwarded = (c.req.header('x-forwarded-for') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const chain = [...forwarded, peer];
  return chain[Math.max(0, chain.length - 1 - trustProxy)]!;
}
