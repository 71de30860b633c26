import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake provider answers for one credential. */
export type Behavior =
  | 'active'
  | 'forbidden'
  | 'revoked'
  | 'rate-limited'
  | 'server-error'
  | 'not-json'
  | 'hang'
  | 'redirect'
  | { chatError: string };

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

/**
 * One real HTTP server on 127.0.0.1 that plays the three credential providers (codehost, payment, chat) under the
 * prefixes /codehost, /payment and /chat (a prefix also proves base paths like GHE's /api/v3 are kept).
 * It answers by the credential in the Authorization header, and records every request.
 */
export class FakeProviders {
  readonly requests: RecordedRequest[] = [];
  private readonly behaviors = new Map<string, Behavior>();
  private server!: Server;
  private base = '';

  static async start(): Promise<FakeProviders> {
    const fake = new FakeProviders();
    fake.server = createServer((req, res) => fake.handle(req, res));
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.base = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  /** The provider URLs to configure (SVC_*_API_URL), as the verifier and the CLI take them. */
  get urls() {
    return {
      codehostApiUrl: `${this.base}/codehost`,
      paymentApiUrl: `${this.base}/payment/`,
      chatApiUrl: `${this.base}/chat`,
    };
  }

  get env(): Record<string, string> {
    return {
      SVC_CODEHOST_API_URL: this.urls.codehostApiUrl,
      SVC_PAYMENT_API_URL: this.urls.paymentApiUrl,
      SVC_CHAT_API_URL: this.urls.chatApiUrl,
    };
  }

  set(credential: string, behavior: Behavior): this {
    this.behaviors.set(credential, behavior);
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = req.url ?? '';
    this.requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization });
    const credential = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const answer = this.answer(req.method ?? '', path, this.behaviors.get(credential) ?? 'revoked');
    if (answer === null) return; // 'hang': never answers
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  }

  private answer(method: string, path: string, behavior: Behavior): Answer | null {
    const chat = path === '/chat/api/auth.test';
    const known =
      (path === '/codehost/rate_limit' && method === 'GET') ||
      (path === '/payment/v1/balance' && method === 'GET') ||
      (chat && method === 'POST');
    if (!known) return json(404, { message: 'Not Found' });
    if (behavior === 'hang') return null;
    if (behavior === 'redirect')
      return { status: 302, headers: { location: 'http://127.0.0.1:9/elsewhere' }, body: '' };
    if (behavior === 'rate-limited') return json(429, { message: 'slow down' });
    if (behavior === 'server-error') return json(500, { message: 'boom' });
    if (behavior === 'not-json') {
      return { status: 200, headers: { 'content-type': 'text/html' }, body: '<html>maintenance</html>' };
    }
    if (chat) {
      if (behavior === 'active') return json(200, { ok: true, team: 'acme', user: 'bot' });
      return json(200, {
        ok: false,
        error: typeof behavior === 'object' ? behavior.chatError : 'invalid_auth',
      });
    }
    if (behavior === 'active') return json(200, { resources: {}, available: [] });
    if (behavior === 'forbidden') return json(403, { message: 'Resource not accessible' });
    return json(401, { message: 'Bad credentials' });
  }
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function json(status: number, body: unknown): Answer {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}
