import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  base64url,
  type CryptoKey,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';

/** How the fake GitLab API answers for one project. */
export type ProjectBehavior =
  | 'public'
  | 'private'
  | 'internal'
  | 'hang'
  | 'late'
  | 'error'
  | 'unauthorized'
  | 'forbidden'
  | 'not-json'
  | 'no-visibility'
  | 'redirect';

/** How the JWKS endpoints answer. */
export type JwksBehavior = 'ok' | 'error' | 'hang' | 'late' | 'not-json';

/**
 * 'late' answers normally (keys; a public project), but only after this long. A client whose timeout is
 * shorter gives up first whatever the machine's speed: its timer was started before this one, and Node
 * fires timers in order of expiry. So a test shows that a timeout fired, and that it was the configured
 * one and not a default, by the answer alone, with no bound on elapsed time.
 */
export const LATE_MS = 4000;

export interface SignOptions {
  /** Default `svc`; null leaves `aud` out. */
  audience?: string | string[] | null;
  /** Default the fake's own issuer; null leaves `iss` out. */
  issuer?: string | null;
  /** Seconds from now; default 3600. Negative for a token that has already expired. */
  expiresIn?: number;
  /** Leave `exp` out. */
  noExpiry?: boolean;
  /** `iat`, default now (seconds since the epoch). */
  issuedAt?: number;
  /** `nbf`, default none. */
  notBefore?: number;
  /** The header's `kid`: default the signing key's own; null leaves it out. */
  kid?: string | null;
  /**
   * `RS256` (default); `HS256`, HMAC keyed with the issuer's public key (the RS/HS confusion attack);
   * `none`, an unsigned token with an empty signature.
   */
  alg?: 'RS256' | 'HS256' | 'none';
  /** Sign with an RSA key that is not in the JWKS (its own `kid` unless `kid` is given). */
  foreignKey?: boolean;
}

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export interface ApiRequest {
  path: string;
  privateToken: string | undefined;
}

/**
 * A CI identity token issuer on 127.0.0.1, standing in for GitHub (JWKS at `/.well-known/jwks`)
 * and GitLab (JWKS at `/oauth/discovery/keys`), with a fake GitLab project API under `/api/v4`.
 */
export class FakeIssuer {
  /** JWKS fetches, on either path. */
  requests = 0;
  /** GitLab API requests. */
  readonly apiRequests: ApiRequest[] = [];
  /** The token that the fake GitLab API accepts as `PRIVATE-TOKEN`. */
  readonly apiToken = 'fake-codehostb-api-token';
  jwksBehavior: JwksBehavior = 'ok';

  private readonly keys: SigningKey[] = [];
  private foreign!: SigningKey;
  private spare!: Promise<SigningKey>;
  private readonly projects = new Map<string, ProjectBehavior>();
  private server!: Server;
  private base = '';

  static async start(): Promise<FakeIssuer> {
    const fake = new FakeIssuer();
    const [first, foreign, spare] = await Promise.all([
      signingKey('fake-key-1'),
      signingKey('foreign-key'),
      signingKey('fake-key-2'),
    ]);
    fake.keys.push(first);
    fake.foreign = foreign;
    fake.spare = Promise.resolve(spare);
    fake.server = createServer((req, res) => fake.handle(req, res));
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.base = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  /** The base URL, which is also the `iss` of its tokens. */
  get issuer(): string {
    return this.base;
  }

  /** GitHub's JWKS location. */
  get jwksUrlA(): string {
    return `${this.base}/.well-known/jwks`;
  }

  /** GitLab's JWKS location. */
  get jwksUrlB(): string {
    return `${this.base}/oauth/discovery/keys`;
  }

  /** The fake GitLab API base (as `SVC_CODEHOSTB_API_URL`). */
  get apiUrl(): string {
    return `${this.base}/api/v4`;
  }

  /** The `kid` that tokens are signed with by default. */
  get kid(): string {
    return this.currentKey.kid;
  }

  /**
   * Key rotation: a new key joins the JWKS and signs from now on (the old one stays published). The key
   * was made in advance, so the rotation itself takes no time (timing tests depend on it).
   */
  async rotateKey(): Promise<string> {
    this.keys.push(await this.spare);
    this.spare = signingKey(`fake-key-${this.keys.length + 1}`);
    return this.kid;
  }

  setProjectVisibility(path: string, behavior: ProjectBehavior): this {
    this.projects.set(path, behavior);
    return this;
  }

  async sign(claims: JWTPayload = {}, options: SignOptions = {}): Promise<string> {
    const key = options.foreignKey ? this.foreign : this.currentKey;
    const now = Math.floor(Date.now() / 1000);
    const payload: JWTPayload = { ...claims };
    if (options.issuer !== null) payload.iss = options.issuer ?? this.issuer;
    if (options.audience !== null) payload.aud = options.audience ?? 'svc';
    payload.iat = options.issuedAt ?? now;
    if (options.notBefore !== undefined) payload.nbf = options.notBefore;
    if (!options.noExpiry) payload.exp = now + (options.expiresIn ?? 3600);
    const kid = options.kid === null ? undefined : (options.kid ?? key.kid);
    const alg = options.alg ?? 'RS256';

    if (alg === 'none') {
      const header = { alg: 'none', typ: 'JWT', ...(kid === undefined ? {} : { kid }) };
      return `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(payload))}.`;
    }
    const jwt = new SignJWT(payload).setProtectedHeader({
      alg,
      typ: 'JWT',
      ...(kid === undefined ? {} : { kid }),
    });
    if (alg === 'HS256') {
      const publicPem = await exportSPKI(key.publicKey);
      return jwt.sign(new TextEncoder().encode(publicPem));
    }
    return jwt.sign(key.privateKey);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private get currentKey(): SigningKey {
    return this.keys[this.keys.length - 1]!;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method === 'GET' && (path === '/.well-known/jwks' || path === '/oauth/discovery/keys')) {
      this.requests += 1;
      this.serveJwks(res);
      return;
    }
    const project = /^\/api\/v4\/projects\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && project) {
      const privateToken = req.headers['private-token'];
      this.apiRequests.push({
        path,
        privateToken: typeof privateToken === 'string' ? privateToken : undefined,
      });
      this.serveProject(decodeURIComponent(project[1]!), privateToken === this.apiToken, res);
      return;
    }
    json(res, 404, { error: '404 Not Found' });
  }

  private serveJwks(res: ServerResponse): void {
    switch (this.jwksBehavior) {
      case 'hang':
        return;
      case 'late':
        later(res, () => json(res, 200, { keys: this.keys.map((k) => k.publicJwk) }));
        return;
      case 'error':
        json(res, 503, { error: 'unavailable' });
        return;
      case 'not-json':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('<html>not a key set</html>');
        return;
      default:
        json(res, 200, { keys: this.keys.map((k) => k.publicJwk) });
    }
  }

  /** As GitLab answers: private and internal projects are a 404 unless the token may see them. */
  private serveProject(path: string, authorized: boolean, res: ServerResponse): void {
    const behavior = this.projects.get(path);
    switch (behavior) {
      case undefined:
        json(res, 404, { message: '404 Project Not Found' });
        return;
      case 'hang':
        return;
      case 'late':
        later(res, () => json(res, 200, { id: 1, path_with_namespace: path, visibility: 'public' }));
        return;
      case 'error':
        json(res, 500, { message: '500 Internal Server Error' });
        return;
      case 'unauthorized':
        json(res, 401, { message: '401 Unauthorized' });
        return;
      case 'forbidden':
        json(res, 403, { message: '403 Forbidden' });
        return;
      case 'not-json':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('<html>maintenance</html>');
        return;
      case 'no-visibility':
        json(res, 200, { id: 1, path_with_namespace: path });
        return;
      case 'redirect':
        res.writeHead(301, { location: 'http://127.0.0.1:9/elsewhere' });
        res.end();
        return;
      default:
        if (behavior !== 'public' && !authorized) {
          json(res, 404, { message: '404 Project Not Found' });
          return;
        }
        json(res, 200, { id: 1, path_with_namespace: path, visibility: behavior });
    }
  }
}

async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateKey, publicKey, publicJwk };
}

/** Answers after LATE_MS unless the client has gone; the timer does not keep the test process alive. */
function later(res: ServerResponse, answer: () => void): void {
  const timer = setTimeout(() => {
    if (!res.destroyed) answer();
  }, LATE_MS);
  timer.unref();
  res.on('close', () => clearTimeout(timer));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
