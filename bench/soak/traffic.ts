import { Agent, request } from 'node:http';

/** One kind of request in the mix: how to send it, and what answer is right. */
export interface Route {
  name: string;
  /** Share of the mix. */
  weight: number;
  /** The request, for a client at `ip` (sent as the proxy in front of the balancer would). */
  make(ip: string): { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string };
  /** Whether the answer is what this route must give (beyond "not a 5xx"). */
  check?(status: number, body: string): boolean;
}

/** Per route: answers by status, latencies, and answers that failed their check. */
export interface RouteStats {
  statuses: Map<number, number>;
  latenciesMs: number[];
  wrong: number;
  /** Requests with no answer at all (connection refused or reset by the balancer). */
  errors: number;
}

export interface Sample {
  route: string;
  at: number;
  status: number;
  ms: number;
}

/**
 * Sends the mix with `connections` loops, each one request at a time, until stopped. Every client
 * address is one of `clients` (X-Forwarded-For, which the service trusts as one more proxy hop), so
 * the per-IP limits see many clients, not one load generator.
 */
export class Traffic {
  readonly stats = new Map<string, RouteStats>();
  /** Every answer in order, for the fault windows (a status and a latency at a time). */
  readonly samples: Sample[] = [];
  private running = true;
  private readonly loops: Promise<void>[] = [];
  private readonly agent: Agent;
  private readonly totalWeight: number;

  constructor(
    private readonly base: string,
    private readonly routes: Route[],
    private readonly clients: number,
    connections: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: connections });
    this.totalWeight = routes.reduce((sum, r) => sum + r.weight, 0);
    for (const route of routes) {
      this.stats.set(route.name, { statuses: new Map(), latenciesMs: [], wrong: 0, errors: 0 });
    }
    for (let i = 0; i < connections; i++) this.loops.push(this.loop(i));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.agent.destroy();
  }

  private pick(n: number): Route {
    let left = n * this.totalWeight;
    for (const route of this.routes) {
      left -= route.weight;
      if (left < 0) return route;
    }
    return this.routes[this.routes.length - 1]!;
  }

  private async loop(seed: number): Promise<void> {
    let state = seed * 7919 + 1;
    const next = () => {
      state = (state * 48271) % 2147483647;
      return state / 2147483647;
    };
    while (this.running) {
      const route = this.pick(next());
      const client = Math.floor(next() * this.clients);
      const ip = `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`;
      await this.send(route, ip);
    }
  }

  /** Sends one request of the route and records the answer. */
  async send(route: Route, ip: string): Promise<{ status: number; body: string } | null> {
    const { method, path, headers, body } = route.make(ip);
    const stats = this.stats.get(route.name)!;
    const started = performance.now();
    try {
      const res = await send(
        `${this.base}${path}`,
        method,
        { 'x-forwarded-for': ip, ...headers },
        body,
        this.agent,
      );
      const ms = performance.now() - started;
      stats.statuses.set(res.status, (stats.statuses.get(res.status) ?? 0) + 1);
      stats.latenciesMs.push(ms);
      if (res.status < 500 && route.check && !route.check(res.status, res.body)) stats.wrong++;
      this.samples.push({ route: route.name, at: Date.now(), status: res.status, ms });
      return res;
    } catch {
      stats.errors++;
      this.samples.push({ route: route.name, at: Date.now(), status: 0, ms: performance.now() - started });
      return null;
    }
  }
}

/** The p-th percentile of the values, in the units given. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** One HTTP request on a keep-alive agent; the whole answer as text. 30 s without an answer fails it. */
export function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  agent: Agent,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer in 30 s')));
    req.on('error', reject);
    req.end(body);
  });
}
