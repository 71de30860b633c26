import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The GitHub user the fake signs in: its stable id, login and email list. */
export interface FakeOAuthUser {
  id: number;
  login: string;
  emails: { email: string; primary: boolean; verified: boolean }[];
}

interface IssuedCode {
  challenge: string;
  method: string;
  redirectUri: string;
  user: FakeOAuthUser;
  used: boolean;
}

/**
 * A fake GitHub on loopback, real HTTP: the authorize page approves at once (redirecting to the
 * redirect_uri with a code and the state), the token endpoint checks the client, the code (single
 * use), the redirect URI and the PKCE verifier as the real one does, and the API serves /user and
 * /user/emails for the token it issued. It serves both SVC_OAUTH_A_URL and SVC_CODEHOST_API_URL.
 */
export class FakeOAuthA {
  readonly clientId = 'fake-client-id';
  readonly clientSecret = `fake-secret-${randomBytes(8).toString('hex')}`;
  /** Who the next authorization signs in. */
  user: FakeOAuthUser = {
    id: 4242,
    login: 'octo',
    emails: [{ email: 'octo@example.com', primary: true, verified: true }],
  };
  /** Every request's method and path, for tests that assert what was (not) called. */
  readonly requests: string[] = [];
  private readonly codes = new Map<string, IssuedCode>();
  private readonly tokens = new Map<string, FakeOAuthUser>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeOAuthA> {
    let fake: FakeOAuthA | undefined;
    const server = createServer((req, res) => {
      fake?.handle(req).then(
        ({ status, headers, body }) => {
          res.writeHead(status, headers);
          res.end(body);
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake = new FakeOAuthA(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return fake;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(
    req: IncomingMessage,
  ): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const url = new URL(req.url ?? '/', this.url);
    this.requests.push(`${req.method} ${url.pathname}`);
    const json = (status: number, value: unknown) => ({
      status,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(value),
    });

    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      const q = url.searchParams;
      const redirectUri = q.get('redirect_uri') ?? '';
      if (q.get('client_id') !== this.clientId || redirectUri === '')
        return json(400, { error: 'bad client' });
      const code = randomBytes(10).toString('hex');
      this.codes.set(code, {
        challenge: q.get('code_challenge') ?? '',
        method: q.get('code_challenge_method') ?? '',
        redirectUri,
        user: this.user,
        used: false,
      });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state') ?? '');
      return { status: 302, headers: { location: back.toString() }, body: '' };
    }

    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const form = new URLSearchParams(await readBody(req));
      if (form.get('client_id') !== this.clientId || form.get('client_secret') !== this.clientSecret) {
        return json(200, { error: 'incorrect_client_credentials' });
      }
      const issued = this.codes.get(form.get('code') ?? '');
      // The real platform answers 200 with an error for a used or unknown code.
      if (issued === undefined || issued.used) return json(200, { error: 'bad_verification_code' });
      issued.used = true;
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (issued.method !== 'S256' || challenge !== issued.challenge) {
        return json(200, { error: 'bad_verification_code', error_description: 'PKCE verification failed' });
      }
      if (form.get('redirect_uri') !== issued.redirectUri)
        return json(200, { error: 'redirect_uri_mismatch' });
      const token = `gho_${randomBytes(16).toString('hex')}`;
      this.tokens.set(token, issued.user);
      return json(200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }

    const user = this.tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (req.method === 'GET' && url.pathname === '/user') {
      return user
        ? json(200, { id: user.id, login: user.login, email: null })
        : json(401, { message: 'Bad credentials' });
    }
    if (req.method === 'GET' && url.pathname === '/user/emails') {
      return user ? json(200, user.emails) : json(401, { message: 'Bad credentials' });
    }
    return json(404, { message: 'Not Found' });
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
