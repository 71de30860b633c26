import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { CLI } from './svc-cli.js';

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A new user and key through `svc admin` (synchronous: nothing in this process can answer meanwhile). */
function createUserWithKey(env: NodeJS.ProcessEnv, plan: 'free' | 'paid'): string {
  // A random address, not the clock: two servers started in the same millisecond share no user.
  const email = `bench-${randomUUID()}@example.test`;
  execFileSync(process.execPath, [CLI, 'admin', 'create-user', '--email', email, '--plan', plan], { env });
  return execFileSync(process.execPath, [CLI, 'admin', 'create-key', '--email', email], {
    env,
    encoding: 'utf8',
  }).trim();
}

/**
 * `svc serve` as its own process on a free port (the built CLI), a user with a fresh key in its
 * database (or the given `key`), and a way to stop it; waits until /healthz answers. With `capture`, what the process
 * writes (its log lines on stdout, anything on stderr) is kept for the test to read.
 */
export async function startServiceProcess(
  env: NodeJS.ProcessEnv,
  plan: 'free' | 'paid' = 'paid',
  options: { capture?: boolean; key?: string } = {},
) {
  const port = await freePort();
  const full = { ...process.env, ...env, PORT: String(port) };
  const key = options.key ?? createUserWithKey(full, plan);
  const server: ChildProcess = spawn(process.execPath, [CLI, 'serve'], {
    env: full,
    stdio: ['ignore', options.capture ? 'pipe' : 'ignore', options.capture ? 'pipe' : 'inherit'],
  });
  let output = '';
  server.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  server.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`${base}/healthz`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    base,
    key,
    /** The process id, for benches that read its memory in /proc. */
    pid: server.pid,
    /** The process itself, to signal it without waiting for its exit. */
    process: server,
    /** Everything the process wrote so far (with `capture`). */
    output: () => output,
    /** Whether the process is still running. */
    running: () => server.exitCode === null && server.signalCode === null,
    exited,
    /** Sends a signal (SIGKILL: the process dies with no chance to clean up) and waits for the exit. */
    async kill(signal: NodeJS.Signals) {
      server.kill(signal);
      await exited;
    },
    async stop() {
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
      await exited;
    },
  };
}
