import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VERSION } from '../version.js';
import { checkChatToken } from './chat.js';
import type { CheckContext } from './check.js';
import { checkCodehostToken } from './codehost.js';
import { callProvider, describeFailure } from './http.js';
import { checkPaymentKey } from './payment.js';

/**
 * The outcome rules of each provider's check, status by status, against a loopback server that
 * answers whatever the test sets (verifier.test.ts covers the same checks through the verifier, with
 * the fake providers' fixed behaviours).
 */
let server: Server;
let base: string;
let answer: { status: number; body?: string; stall?: boolean } = { status: 200 };
let seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    // `stall`: the status line and headers go out, the body never does.
    if (answer.stall) res.flushHeaders();
    else res.end(answer.body ?? '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen = [];
  answer = { status: 200 };
});

const ctx = (signal: AbortSignal = AbortSignal.timeout(5000)): CheckContext => ({
  urls: { codehostApiUrl: base, paymentApiUrl: base, chatApiUrl: base },
  signal,
});

describe('codehost and payment: 2xx or 403 active, 401 revoked, anything else decides nothing', () => {
  it.each<[number, string, string | undefined]>([
    [200, 'active', undefined],
    [204, 'active', undefined],
    [299, 'active', undefined],
    [403, 'active', undefined],
    [401, 'revoked', undefined],
    [300, 'unchecked', 'unexpected redirect (HTTP 300)'],
    [302, 'unchecked', 'unexpected redirect (HTTP 302)'],
    [399, 'unchecked', 'unexpected redirect (HTTP 399)'],
    [400, 'unchecked', 'inconclusive answer (HTTP 400)'],
    [404, 'unchecked', 'inconclusive answer (HTTP 404)'],
    [429, 'unchecked', 'rate limited by the provider (HTTP 429)'],
    [500, 'unchecked', 'inconclusive answer (HTTP 500)'],
  ])('HTTP %i: %s %s', async (status, verification, reason) => {
    answer = { status };
    for (const check of [checkCodehostToken, checkPaymentKey]) {
      expect(await check('credential', ctx())).toEqual(
        reason === undefined ? { verification } : { verification, reason },
      );
    }
  });

  it('sends the credential as a bearer token, with the headers each provider expects', async () => {
    await checkCodehostToken('cred-a', ctx());
    await checkPaymentKey('cred-b', ctx());
    expect(seen[0]).toMatchObject({
      authorization: 'Bearer cred-a',
      accept: 'application/vnd.github+json',
      'user-agent': `svc/${VERSION}`,
    });
    expect(seen[1]).toMatchObject({ authorization: 'Bearer cred-b', 'user-agent': `svc/${VERSION}` });
  });
});

describe('chat: ok decides, then the error value', () => {
  it.each<[number, string, string, string | undefined]>([
    [200, '{"ok":true}', 'active', undefined],
    [200, '{"ok":false,"error":"token_revoked"}', 'revoked', undefined],
    [200, '{"ok":false,"error":"ratelimited"}', 'unchecked', 'inconclusive answer (ratelimited)'],
    // Only a short lower-case code is shown: nothing else the provider wrote.
    [200, '{"ok":false}', 'unchecked', 'inconclusive answer'],
    [200, '{"ok":false,"error":null}', 'unchecked', 'inconclusive answer'],
    [200, '{"ok":false,"error":42}', 'unchecked', 'inconclusive answer'],
    [200, '{"ok":false,"error":"BAD_thing"}', 'unchecked', 'inconclusive answer'],
    [200, '{"ok":false,"error":"abc DEF"}', 'unchecked', 'inconclusive answer'],
    [200, `{"ok":false,"error":"${'a'.repeat(41)}"}`, 'unchecked', 'inconclusive answer'],
    [200, `{"ok":false,"error":"${'a'.repeat(40)}"}`, 'unchecked', `inconclusive answer (${'a'.repeat(40)})`],
    [200, 'null', 'unchecked', 'inconclusive answer'],
    [200, '<html>', 'unchecked', 'the provider answered with something that is not JSON'],
    [401, '{"ok":true}', 'unchecked', 'inconclusive answer (HTTP 401)'],
    // Only 200 decides for chat: another 2xx is inconclusive, not a redirect.
    [201, '{"ok":true}', 'unchecked', 'inconclusive answer (HTTP 201)'],
  ])('HTTP %i %s: %s %s', async (status, body, verification, reason) => {
    answer = { status, body };
    expect(await checkChatToken('xoxb-cred', ctx())).toEqual(
      reason === undefined ? { verification } : { verification, reason },
    );
    expect(seen[0]).toMatchObject({
      authorization: 'Bearer xoxb-cred',
      'content-type': 'application/x-www-form-urlencoded',
      'user-agent': `svc/${VERSION}`,
    });
  });

  it('a body cut off by the timeout is a timeout, not "not JSON"', async () => {
    answer = { status: 200, stall: true };
    expect(await checkChatToken('xoxb-cred', ctx(AbortSignal.timeout(200)))).toEqual({
      verification: 'unchecked',
      reason: 'the provider did not answer in time',
    });
  });
});

describe('network failures, in words from the error code only', () => {
  it('a refused connection names its code', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    expect(
      await callProvider({
        baseUrl: `http://127.0.0.1:${port}`,
        path: 'x',
        method: 'GET',
        headers: {},
        signal: ctx().signal,
      }),
    ).toEqual({ verification: 'unchecked', reason: 'network error (ECONNREFUSED)' });
  });

  it('an error without a cause is a network error, with no code', async () => {
    expect(
      await callProvider({
        baseUrl: 'http://[not-a-host',
        path: 'x',
        method: 'GET',
        headers: {},
        signal: ctx().signal,
      }),
    ).toEqual({ verification: 'unchecked', reason: 'network error' });
  });

  it('a signal stopped by the caller, not by a timeout: the time for checks ran out', () => {
    const controller = new AbortController();
    controller.abort();
    expect(describeFailure(new Error('aborted'), controller.signal)).toBe(
      'the check was stopped: the time for checks ran out',
    );
    const reason = new Error('deadline');
    const stopped = new AbortController();
    stopped.abort(reason);
    expect(describeFailure(new Error('aborted'), stopped.signal)).toBe(
      'the check was stopped: the time for checks ran out',
    );
    expect(describeFailure(new Error('aborted'), AbortSignal.abort({ name: 'TimeoutError' }))).toBe(
      'the check was stopped: the time for checks ran out',
    );
  });
});
