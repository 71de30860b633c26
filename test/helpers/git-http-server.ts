import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface GitHttpServerOptions {
  /** Accept connections and requests but never answer: a clone that never finishes. */
  stall?: boolean;
  /** Slow every answer's body to about this many bytes a second (a clone that takes a while). */
  bytesPerSecond?: number;
  /**
   * Send this many bytes of a pack (git-upload-pack's answer), then nothing more, the connection
   * left open: a clone stalled mid-transfer, its transfer helper waiting on the socket for good.
   */
  stallPackAfterBytes?: number;
  /** Owners whose repositories answer 401 with a Basic challenge, as a private repository does. */
  privateOwners?: string[];
  /**
   * CPU priority of the git processes serving requests: a bench that measures the service's latency
   * lowers it, since a real code host's git work would not run on the service's machine.
   */
  niceness?: number;
  /**
   * Whether a request's Authorization header may fetch (an installation token, as the GitHub
   * application sends it); a refused request answers 401 with a Basic challenge. Default: anyone.
   */
  authorize?: (authorization: string | undefined) => boolean;
}

/**
 * A real smart-HTTP git server on loopback: `git http-backend` run as CGI per request (what a code
 * host's git front end does), serving the bare repositories under its root as /OWNER/NAME.git.
 * Requests are recorded (method, path, whether an Authorization header came) for tests to inspect.
 */
export class GitHttpServer {
  readonly root = mkdtempSync(join(tmpdir(), 'svc-githttp-'));
  readonly requests: { method: string; path: string; authorization: boolean }[] = [];
  private readonly sockets = new Set<Socket>();
  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(options: GitHttpServerOptions = {}): Promise<GitHttpServer> {
    let self: GitHttpServer | undefined;
    const server = createServer((req, res) => self?.handle(req, res, options));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new GitHttpServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('connection', (socket) => {
      self?.sockets.add(socket);
      socket.on('close', () => self?.sockets.delete(socket));
    });
    return self;
  }

  /** Where to put (or push) the bare repository served as /OWNER/NAME.git. */
  pathOf(owner: string, name: string): string {
    return join(this.root, owner, `${name}.git`);
  }

  /** The URL a client clones it by. */
  urlOf(owner: string, name: string): string {
    return `${this.origin}/${owner}/${name}.git`;
  }

  /** Publishes a local repository as OWNER/NAME (a bare copy with every branch and tag). */
  publish(sourceDir: string, owner: string, name: string): string {
    const target = this.pathOf(owner, name);
    const result = spawnSyncGit(['clone', '--bare', '--quiet', sourceDir, target]);
    if (result !== 0) throw new Error(`could not publish ${sourceDir}`);
    return this.urlOf(owner, name);
  }

  private handle(req: IncomingMessage, res: ServerResponse, options: GitHttpServerOptions): void {
    const url = new URL(req.url ?? '/', this.origin);
    this.requests.push({
      method: req.method ?? '',
      path: url.pathname,
      authorization: !!req.headers.authorization,
    });
    if (options.stall) return; // the socket stays open, nothing is ever sent
    if (
      options.privateOwners?.includes(url.pathname.split('/')[1] ?? '') ||
      (options.authorize !== undefined && !options.authorize(req.headers.authorization))
    ) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end();
      return;
    }
    const child = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: this.root,
        GIT_HTTP_EXPORT_ALL: '1',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        // Partial fetches (`--filter=blob:none`), as the big code hosts allow them.
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'uploadpack.allowFilter',
        GIT_CONFIG_VALUE_0: 'true',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        REMOTE_ADDR: '127.0.0.1',
        ...(req.headers['content-encoding']
          ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] }
          : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    if (options.niceness !== undefined && child.pid !== undefined) setPriority(child.pid, options.niceness);
    req.pipe(child.stdin);
    child.stdin.on('error', () => {});
    child.on('error', () => res.destroy());
    let head = Buffer.alloc(0);
    let headersDone = false;
    const throttle = options.bytesPerSecond ? throttled(options.bytesPerSecond) : null;
    if (throttle) void pipeline(throttle, res).catch(() => {});
    const out = throttle ?? res;
    let packBytes = 0;
    const stallAt = url.pathname.endsWith('/git-upload-pack') ? options.stallPackAfterBytes : undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        if (stallAt !== undefined) {
          if (packBytes >= stallAt) return;
          chunk = chunk.subarray(0, stallAt - packBytes);
          packBytes += chunk.length;
        }
        out.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else res.setHeader(name, value);
      }
      res.statusCode = status;
      out.write(head.subarray(end + 4));
    });
    child.stdout.on('end', () => {
      if (!headersDone) res.statusCode = 500;
      if (stallAt === undefined) out.end(); // a stalled answer is never ended
    });
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** Passes bytes on at about `rate` a second, in 16 KiB steps. */
function throttled(rate: number): Transform {
  const step = 16 * 1024;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      const pieces: Buffer[] = [];
      for (let i = 0; i < chunk.length; i += step) pieces.push(chunk.subarray(i, i + step));
      const next = () => {
        const piece = pieces.shift();
        if (piece === undefined) return done();
        this.push(piece);
        setTimeout(next, (piece.length / rate) * 1000);
      };
      next();
    },
  });
}

function spawnSyncGit(args: string[]): number | null {
  return spawnSync('git', args, {
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    stdio: 'ignore',
  }).status;
}
