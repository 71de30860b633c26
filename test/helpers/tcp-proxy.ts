import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a real server (PostgreSQL, Redis) that a test can cut, as a
 * network partition or a server going away looks to the client: every open connection is reset and
 * new ones are refused until `restore()`.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly targetPort: number,
    readonly port: number,
  ) {}

  static async start(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    const proxy = new TcpProxy(targetPort, port);
    proxy.targetHost = targetHost;
    await proxy.restore();
    return proxy;
  }

  private targetHost = '127.0.0.1';

  /** Accept connections again, on the same port. */
  async restore(): Promise<void> {
    if (this.server !== undefined) return;
    const server = createServer((client) => {
      const upstream = createConnection(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.server = server;
  }

  /** Resets every open connection and refuses new ones. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.resetAndDestroy();
    if (server !== undefined) await new Promise((resolve) => server.close(resolve));
  }

  /** Connections open through the proxy right now (both sides). */
  get openSockets(): number {
    return this.sockets.size;
  }

  stop(): Promise<void> {
    return this.cut();
  }
}
