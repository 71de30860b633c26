/** One answer seen by a load loop: when it was sent and what came back. */
export interface Sample {
  route: string;
  startedAt: number;
  finishedAt: number;
  status: number;
  retryAfter: string | null;
  body: string;
}

export interface LoadRequest {
  route: string;
  path: string;
  init?: RequestInit;
}

/**
 * Keeps `connections` loops sending the given requests in turn to `base` until `stop()`, and keeps
 * every answer, so a test can look at what each phase of an outage looked like to clients. A request
 * that gets no answer at all (connection refused, reset, no reply in 10 s) is kept with status 0.
 */
export function startLoad(base: string, requests: LoadRequest[], connections: number) {
  const samples: Sample[] = [];
  let running = true;
  const loop = async (offset: number) => {
    for (let i = offset; running; i++) {
      const { route, path, init } = requests[i % requests.length]!;
      const startedAt = Date.now();
      try {
        const response = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
        const body = await response.text();
        samples.push({
          route,
          startedAt,
          finishedAt: Date.now(),
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          body,
        });
      } catch {
        samples.push({ route, startedAt, finishedAt: Date.now(), status: 0, retryAfter: null, body: '' });
      }
    }
  };
  const loops = Array.from({ length: connections }, (_, i) => loop(i));
  return {
    samples,
    /** Requests sent and answered within [from, to). */
    between: (from: number, to: number) => samples.filter((s) => s.startedAt >= from && s.finishedAt < to),
    /**
     * Waits until `count` requests sent at or after `from` were answered (at most `maxMs`): phases
     * of a test are measured in requests, so a loaded machine slows them down instead of thinning them.
     */
    async answeredSince(from: number, count: number, maxMs = 20_000) {
      const until = Date.now() + maxMs;
      while (Date.now() < until && samples.filter((s) => s.startedAt >= from).length < count) await sleep(25);
    },
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
