import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
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

/**
 * `svc serve` as its own process on a free port (the built CLI), a user with a fresh key in its
 * database, and a way to stop it; waits until /healthz answers.
 */
export async function startServiceProcess(env: NodeJS.ProcessEnv, plan: 'free' | 'paid' = 'paid') {
  const port = await freePort();
  const full = { ...process.env, ...env, PORT: String(port) };
  const email = `bench-${Date.now()}@example.test`;
  execFileSync(process.execPath, [CLI, 'admin', 'create-user', '--email', email, '--plan', plan], {
    env: full,
  });
  const key = execFileSync(process.execPath, [CLI, 'admin', 'create-key', '--email', email], {
    env: full,
    encoding: 'utf8',
  }).trim();
  const server: ChildProcess = spawn(process.execPath, [CLI, 'serve'], {
    env: full,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
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
    async stop() {
      server.kill('SIGTERM');
      await new Promise((r) => server.on('close', r));
    },
  };
}
