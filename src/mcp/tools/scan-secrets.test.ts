import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { scanText } from '../../scanner/index.js';
import { INLINE_SCAN_BYTES, TEXT_SCAN_LIMITS } from '../../services/text-scan.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `api_token = "<20 random base62>"` lines up to `bytes`: every line a generic-secret finding. */
function findingOnEveryLine(bytes: number): { content: string; lines: number } {
  const lines: string[] = [];
  let size = 0;
  for (;;) {
    let value = '';
    for (const b of randomBytes(20)) value += ALPHABET[b % ALPHABET.length];
    const line = `api_token = "${value}"\n`;
    if (size + line.length > bytes) return { content: lines.join(''), lines: lines.length };
    lines.push(line);
    size += line.length;
  }
}

type Structured = {
  findings: { document: number; line: number; maskedValue: string }[];
  passed: boolean;
  total: number;
  truncated: boolean;
};

describe('scan_secrets is bounded whatever the input (contract 5)', () => {
  let t: TestApp;
  let key: string;
  let server: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    t = await startTestApp({ rateLimits: { api: 1_000_000 } });
    key = await t.userWithKey('bounds@example.test');
    server = await t.listen();
  });
  afterAll(async () => {
    await server?.close();
    await t?.cleanup();
  });

  const bodyOf = (documents: { content: string; filename?: string }[]) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'scan_secrets', arguments: { documents } },
    });
  const call = async (documents: { content: string; filename?: string }[] | string) => {
    const r = await requestOnNewConnection(`${server.url}/mcp`, {
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: typeof documents === 'string' ? documents : bodyOf(documents),
    });
    const text = r.text;
    const body = JSON.parse(text) as {
      result: { structuredContent: Structured; content: { text: string }[] };
    };
    expect(JSON.parse(body.result.content[0]!.text)).toEqual(body.result.structuredContent);
    return { status: r.status, bytes: text.length, result: body.result.structuredContent };
  };

  it('a maximal call (20 x 1 MiB, a finding on every line): 1,000 findings, truncated, the total; /livez answers meanwhile', async () => {
    const docs = Array.from({ length: 20 }, (_, i) => ({
      ...findingOnEveryLine(TEXT_SCAN_LIMITS.documentBytes),
      filename: `src/f${i}.ts`,
    }));
    const expectedTotal = docs.reduce((n, d) => n + d.lines, 0);
    // Made before /livez is polled: this process's own work must not count against the service.
    const body = bodyOf(docs.map(({ content, filename }) => ({ content, filename })));

    let calling = true;
    let slowest = 0;
    let answers = 0;
    const poller = (async () => {
      while (calling) {
        const started = performance.now();
        expect((await requestOnNewConnection(`${server.url}/livez`)).status).toBe(200);
        slowest = Math.max(slowest, performance.now() - started);
        answers++;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    // A handler at once, so a poll failing while the call runs is no unhandled rejection; the
    // await below still throws it.
    poller.catch(() => undefined);
    const started = performance.now();
    let answer: Awaited<ReturnType<typeof call>>;
    try {
      answer = await call(body);
    } finally {
      // Awaited even when the call fails, so a poll refused after the server closes is no
      // unhandled rejection.
      calling = false;
      await poller;
    }
    const { status, bytes, result } = answer;
    const callMs = performance.now() - started;

    expect(status).toBe(200);
    expect(result.findings).toHaveLength(TEXT_SCAN_LIMITS.findings);
    expect(result.truncated).toBe(true);
    // Every line but the few random values that happen to read as words or lack entropy.
    expect(result.total).toBeLessThanOrEqual(expectedTotal);
    expect(result.total).toBeGreaterThan(expectedTotal * 0.99);
    expect(result.passed).toBe(false);
    // The first findings, in order: document 0's first ones, as the scanner finds them in that
    // document alone (a random value may read as words and be skipped: not always lines 1 to 3).
    const firstOfDocumentZero = scanText([{ content: docs[0]!.content, filename: docs[0]!.filename }], {
      maxFindings: 3,
    }).findings.map((f) => [0, f.line]);
    expect(firstOfDocumentZero).toHaveLength(3);
    expect(firstOfDocumentZero[2]![1]).toBeLessThan(10);
    expect(result.findings.slice(0, 3).map((f) => [f.document, f.line])).toEqual(firstOfDocumentZero);
    expect(bytes).toBeLessThan(1024 * 1024);
    // The event loop was not held for the scan. Generous: the target is 100 ms (bench:mcp-max
    // measures it); a shared CI machine is slow, but a scan on the loop held it for seconds.
    expect(answers).toBeGreaterThan(0);
    expect(slowest).toBeLessThan(1000);
    console.log(
      `the call took ${Math.round(callMs)} ms; slowest /livez meanwhile: ${Math.round(slowest)} ms of ${answers}`,
    );
  });

  it('a call under the cap lists every finding, not truncated; a large one without findings passes', async () => {
    const small = findingOnEveryLine(4 * 1024);
    // The scanner's own count (a random value may read as words and be skipped), kept whole.
    const expected = scanText([{ content: small.content }]).total;
    expect(expected).toBeGreaterThan(small.lines * 0.9);
    const few = await call([{ content: small.content, filename: 'test/fixture.ts' }]);
    expect(few.result).toMatchObject({ total: expected, truncated: false, passed: true });
    expect(few.result.findings).toHaveLength(expected);
    // Over the inline size, so through the worker thread: the same answer shape.
    const clean = 'const total = items.reduce((sum, item) => sum + item.price, 0);\n'.repeat(
      Math.ceil((2 * INLINE_SCAN_BYTES) / 64),
    );
    const large = await call([{ content: `${clean}${small.content}`, filename: 'docs/a.md' }]);
    expect(large.result).toMatchObject({ total: expected, truncated: false, passed: true });
    expect(large.result.findings).toEqual(
      few.result.findings.map((f) => ({
        ...f,
        filename: 'docs/a.md',
        location: 'docs',
        line: f.line + Math.ceil((2 * INLINE_SCAN_BYTES) / 64),
      })),
    );
  });
});

/**
 * A request's status and body text (a GET without `body`), over a connection of its own: a reused
 * idle connection can be closed by the server (its 5 s keep-alive timeout) as the next request goes
 * out: ECONNRESET, which says nothing of whether the service answers. Seen in CI on a loaded machine,
 * for the /livez polls and for the maximal call (the tests run in a random order: an earlier call's
 * connection sat idle while the 20 MiB body was made).
 */
function requestOnNewConnection(
  url: string,
  { headers = {}, body }: { headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const method = body === undefined ? 'GET' : 'POST';
    const req = request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
