import { type KeyObject, randomInt } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text as readText } from 'node:stream/consumers';
import { jwtVerify } from 'jose';

/** One request as the fake saw and answered it. */
export interface FakeRequest {
  method: string;
  /** The path as sent (percent-encoding kept), without the query. */
  path: string;
  /** What was answered. */
  status: number;
  /** The parsed JSON body, or null (none, or not JSON). */
  body: unknown;
  authorization: string | undefined;
  headers: IncomingHttpHeaders;
}

export interface FakeCheckRun {
  id: number;
  owner: string;
  repo: string;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  /** Every annotation of every request, in order: GitHub appends, it never replaces. */
  annotations: unknown[];
}

interface IssuedToken {
  installationId: number;
  expiresAt: number;
}

interface Injection {
  remaining: number;
  status: number;
  path: RegExp | undefined;
  headers: Record<string, string>;
}

interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** GitHub takes at most 50 annotations per request. */
const MAX_ANNOTATIONS = 50;
/** GitHub refuses an app JWT that lives longer than this. */
const MAX_JWT_LIFETIME_S = 600;

/**
 * A fake GitHub REST API on 127.0.0.1, real HTTP, for the service acting as an installed app: the
 * installation token exchange (the app JWT verified as GitHub does) and check runs, with faults
 * injected on demand. A git server in tests asks it whether an installation token is valid.
 */
export class FakeCodehostA {
  readonly requests: FakeRequest[] = [];
  private readonly tokens = new Map<string, IssuedToken>();
  private readonly runs = new Map<number, FakeCheckRun>();
  private readonly injections: Injection[] = [];
  private nextRunId = 1;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly appId: string,
    private readonly publicKey: KeyObject,
    private readonly tokenTtlSeconds: number,
  ) {}

  static async start(options: {
    appId: string;
    publicKey: KeyObject;
    tokenTtlSeconds?: number;
  }): Promise<FakeCodehostA> {
    let fake: FakeCodehostA | undefined;
    const server = createServer((req, res) => {
      fake?.handle(req).then(
        ({ status, headers, body }) => {
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.end(JSON.stringify(body));
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    fake = new FakeCodehostA(server, url, options.appId, options.publicKey, options.tokenTtlSeconds ?? 3600);
    return fake;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  isValidToken(token: string): boolean {
    return this.installationOfToken(token) !== null;
  }

  installationOfToken(token: string): number | null {
    const issued = this.tokens.get(token);
    return issued !== undefined && issued.expiresAt > Date.now() ? issued.installationId : null;
  }

  /** Every token issued so far is refused from now on, as if it had expired. */
  expireTokens(): void {
    for (const issued of this.tokens.values()) issued.expiresAt = 0;
  }

  /** The next `count` requests (whose path matches, if given) answer `status` before any handling. */
  failNext(
    count: number,
    status: number,
    options?: { path?: RegExp; headers?: Record<string, string> },
  ): void {
    this.injections.push({ remaining: count, status, path: options?.path, headers: options?.headers ?? {} });
  }

  checkRuns(): FakeCheckRun[] {
    return structuredClone([...this.runs.values()]);
  }

  /** Personal tokens `GET /rate_limit` accepts: a planted token is "active" when listed here. */
  readonly liveCredentials = new Set<string>();

  private async handle(req: IncomingMessage): Promise<Answer> {
    const path = new URL(req.url ?? '/', this.url).pathname;
    const text = await readText(req);
    const body = parseJson(text);
    const answer = this.injected(path) ?? (await this.route(req.method ?? 'GET', path, req, body));
    this.requests.push({
      method: req.method ?? 'GET',
      path,
      status: answer.status,
      body,
      authorization: req.headers.authorization,
      headers: req.headers,
    });
    return answer;
  }

  private injected(path: string): Answer | undefined {
    const injection = this.injections.find((i) => i.remaining > 0 && (i.path?.test(path) ?? true));
    if (injection === undefined) return undefined;
    injection.remaining -= 1;
    return { status: injection.status, headers: injection.headers, body: { message: 'injected' } };
  }

  private async route(method: string, path: string, req: IncomingMessage, body: unknown): Promise<Answer> {
    const exchange = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (method === 'POST' && exchange) return this.issueToken(Number(exchange[1]), req);

    const create = /^\/repos\/([^/]+)\/([^/]+)\/check-runs$/.exec(path);
    const update = /^\/repos\/([^/]+)\/([^/]+)\/check-runs\/(\d+)$/.exec(path);
    if ((method === 'POST' && create) || (method === 'PATCH' && update)) {
      if (this.installationOfToken(installationCredential(req)) === null) return badCredentials();
      if (!isObject(body)) return invalid('Problems parsing JSON');
      if (create) return this.createRun(decode(create[1]), decode(create[2]), body);
      if (update) return this.updateRun(decode(update[1]), decode(update[2]), Number(update[3]), body);
    }
    // The credential check of a codehost token found in a scan (the same API URL serves both): a
    // listed token is live, any other one refused.
    if (method === 'GET' && path === '/rate_limit') {
      const live = this.liveCredentials.has(installationCredential(req));
      return live ? { status: 200, body: { resources: {} } } : badCredentials();
    }
    return { status: 404, body: { message: 'Not Found' } };
  }

  private async issueToken(installationId: number, req: IncomingMessage): Promise<Answer> {
    if (!(await this.isAppJwt(bearer(req)))) return badCredentials();
    const token = `ghs_${randomBase62(36)}`;
    const expiresAt = Date.now() + this.tokenTtlSeconds * 1000;
    this.tokens.set(token, { installationId, expiresAt });
    // GitHub writes expires_at to the second.
    const expires_at = new Date(Math.floor(expiresAt / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    return { status: 201, body: { token, expires_at } };
  }

  private async isAppJwt(jwt: string): Promise<boolean> {
    try {
      const { payload } = await jwtVerify(jwt, this.publicKey, {
        algorithms: ['RS256'],
        issuer: this.appId,
        requiredClaims: ['iat', 'exp'],
        // iat in the future, or older than GitHub's limit, is refused as GitHub does.
        maxTokenAge: MAX_JWT_LIFETIME_S,
      });
      return (payload.exp ?? 0) - (payload.iat ?? 0) <= MAX_JWT_LIFETIME_S;
    } catch {
      return false;
    }
  }

  private createRun(owner: string, repo: string, body: Record<string, unknown>): Answer {
    if (typeof body.name !== 'string' || typeof body.head_sha !== 'string') {
      return invalid('name and head_sha are required');
    }
    const run: FakeCheckRun = {
      id: this.nextRunId++,
      owner,
      repo,
      name: body.name,
      head_sha: body.head_sha,
      status: 'queued',
      conclusion: null,
      output: { title: null, summary: null, text: null },
      annotations: [],
    };
    const problem = applyChanges(run, body);
    if (problem !== undefined) return invalid(problem);
    this.runs.set(run.id, run);
    return { status: 201, body: run };
  }

  private updateRun(owner: string, repo: string, id: number, body: Record<string, unknown>): Answer {
    const stored = this.runs.get(id);
    if (stored === undefined || stored.owner !== owner || stored.repo !== repo) {
      return { status: 404, body: { message: 'Not Found' } };
    }
    // Applied to a copy so that a refused request changes nothing.
    const run = structuredClone(stored);
    const problem = applyChanges(run, body);
    if (problem !== undefined) return invalid(problem);
    this.runs.set(id, run);
    return { status: 200, body: run };
  }
}

/** Status, conclusion and output as GitHub takes them; the reason for a 422, if any. */
function applyChanges(run: FakeCheckRun, body: Record<string, unknown>): string | undefined {
  if (typeof body.status === 'string') run.status = body.status;
  if (typeof body.conclusion === 'string') {
    run.conclusion = body.conclusion;
    run.status = 'completed';
  }
  if (run.status === 'completed' && run.conclusion === null) return 'conclusion is required when completed';
  if (body.output === undefined) return undefined;
  if (!isObject(body.output)) return 'output must be an object';
  const { title, summary, text, annotations = [] } = body.output;
  if (typeof title !== 'string' || typeof summary !== 'string') return 'output needs a title and a summary';
  if (!Array.isArray(annotations)) return 'annotations must be an array';
  if (annotations.length > MAX_ANNOTATIONS)
    return `Only ${MAX_ANNOTATIONS} annotations are allowed per request`;
  run.output = { title, summary, text: typeof text === 'string' ? text : run.output.text };
  run.annotations.push(...annotations);
  return undefined;
}

function bearer(req: IncomingMessage): string {
  return /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
}

/** Installation tokens are accepted as `Bearer` or the older `token` scheme, as GitHub does. */
function installationCredential(req: IncomingMessage): string {
  return /^(?:Bearer|token) (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
}

function badCredentials(): Answer {
  return { status: 401, body: { message: 'Bad credentials' } };
}

function invalid(message: string): Answer {
  return { status: 422, body: { message } };
}

function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(BASE62.length)];
  return out;
}

function decode(segment: string | undefined): string {
  return decodeURIComponent(segment ?? '');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
