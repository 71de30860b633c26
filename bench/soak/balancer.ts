import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** HAProxy from Debian (`apt-get install haproxy`), in front of the instances, with its own config. */
export interface Balancer {
  url: string;
  stop(): Promise<void>;
}

/** Whether haproxy is installed; the soak says how to install it when not. */
export function haproxyVersion(): string | null {
  try {
    return execFileSync('haproxy', ['-v'], { encoding: 'utf8' }).split('\n')[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * The balancer configuration a deployment would use too (docs/deploy.md shows it):
 * - round robin over the instances, each checked on /livez every 500 ms (the process answers;
 *   /healthz also needs the database, and a database restart must not take every instance out of
 *   rotation: the hooks keep answering while it is down);
 * - a request whose connection failed or got no answer (an instance killed mid-request) is retried
 *   once on another instance; nothing is retried once an answer has started;
 * - the client's address appended to X-Forwarded-For, which the service reads with
 *   SVC_TRUST_PROXY counting this hop.
 */
export function balancerConfig(port: number, backends: { name: string; port: number }[]): string {
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  option redispatch',
    '  retries 2',
    '  retry-on conn-failure empty-response',
    // Retrying needs the whole request in hand (the bodies here are small).
    '  option http-buffer-request',
    'frontend svc',
    `  bind 127.0.0.1:${port}`,
    '  option forwardfor',
    '  default_backend instances',
    'backend instances',
    '  balance roundrobin',
    '  option httpchk GET /livez',
    '  http-check expect status 200',
    '  default-server inter 500ms fall 2 rise 2',
    ...backends.map((b) => `  server ${b.name} 127.0.0.1:${b.port} check`),
    '',
  ].join('\n');
}

export async function startBalancer(
  dir: string,
  port: number,
  backends: { name: string; port: number }[],
): Promise<Balancer> {
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, balancerConfig(port, backends));
  // -db: stay in the foreground, so the soak owns the process and stops it.
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/livez`)).ok) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || i > 100) throw new Error(`haproxy did not start: ${stderr.trim()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
