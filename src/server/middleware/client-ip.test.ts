import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { clientIp, type NodeBindings } from './client-ip.js';

/** The address the service counts a request against, for a socket peer and an X-Forwarded-For. */
async function ipFor(trustProxy: number, peer: string, forwardedFor?: string): Promise<string> {
  const app = new Hono<{ Bindings: NodeBindings }>().get('/', (c) => c.text(clientIp(c, trustProxy)));
  const headers: Record<string, string> =
    forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
  const response = await app.request('/', { headers }, { incoming: { socket: { remoteAddress: peer } } });
  return response.text();
}

describe('the client IP: hops counted from the right, the client-written left never trusted', () => {
  it.each([
    // [trusted hops, socket peer, X-Forwarded-For, client IP]
    [0, '203.0.113.9', undefined, '203.0.113.9'],
    [0, '203.0.113.9', '198.51.100.1', '203.0.113.9'],
    [0, '203.0.113.9', '1.1.1.1, 198.51.100.1', '203.0.113.9'],
    [1, '10.0.0.2', '198.51.100.1', '198.51.100.1'],
    [1, '10.0.0.2', '6.6.6.6, 198.51.100.1', '198.51.100.1'],
    [1, '10.0.0.2', '6.6.6.6,7.7.7.7 ,  198.51.100.1', '198.51.100.1'],
    [1, '10.0.0.2', undefined, '10.0.0.2'],
    [2, '10.0.0.3', '198.51.100.1, 10.0.0.2', '198.51.100.1'],
    [2, '10.0.0.3', '6.6.6.6, 198.51.100.1, 10.0.0.2', '198.51.100.1'],
    [2, '10.0.0.3', '5.5.5.5, 6.6.6.6, 198.51.100.1, 10.0.0.2', '198.51.100.1'],
    [2, '10.0.0.3', '10.0.0.2', '10.0.0.2'],
    // Empty entries (a proxy appending to an empty header, stray commas) are not hops.
    [1, '10.0.0.2', '198.51.100.1, , ', '198.51.100.1'],
    [2, '10.0.0.3', ',198.51.100.1,,10.0.0.2,', '198.51.100.1'],
    [1, '10.0.0.2', '', '10.0.0.2'],
    // More trusted hops than the chain holds: its leftmost entry, never past it.
    [3, '10.0.0.3', '10.0.0.2', '10.0.0.2'],
  ] as const)('%i hops, peer %s, X-Forwarded-For %s: %s', async (hops, peer, forwarded, expected) => {
    expect(await ipFor(hops, peer, forwarded)).toBe(expected);
  });
});

describe('the client IP without a socket peer', () => {
  // app.request() without Node bindings, as in tests and non-Node runtimes: the peer is unknown.
  it.each([
    [0, undefined, 'unknown'],
    [1, undefined, 'unknown'],
    [1, '198.51.100.1', '198.51.100.1'],
  ] as const)('%i hops, X-Forwarded-For %s: %s', async (hops, forwarded, expected) => {
    const app = new Hono<{ Bindings: NodeBindings }>().get('/', (c) => c.text(clientIp(c, hops)));
    const headers: Record<string, string> = forwarded === undefined ? {} : { 'x-forwarded-for': forwarded };
    expect(await (await app.request('/', { headers })).text()).toBe(expected);
  });
});

describe('the client IP when the Node request lacks a socket or its address', () => {
  it.each([
    ['no Node request', {}],
    ['no socket', { incoming: {} }],
    ['no address', { incoming: { socket: {} } }],
  ] as const)('%s: unknown', async (_, env: NodeBindings) => {
    const app = new Hono<{ Bindings: NodeBindings }>().get('/', (c) => c.text(clientIp(c, 0)));
    expect(await (await app.request('/', {}, env)).text()).toBe('unknown');
  });
});
