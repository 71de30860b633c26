import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** The built CLI, as the installed `svc` runs it. */
export const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');

/**
 * Provider URLs on a closed loopback port: a test that does not pass --no-verify still never reaches
 * the internet (every check ends as `unchecked: network error`).
 */
export const OFFLINE_PROVIDERS = {
  SVC_CODEHOST_API_URL: 'http://127.0.0.1:9',
  SVC_PAYMENT_API_URL: 'http://127.0.0.1:9',
  SVC_CHAT_API_URL: 'http://127.0.0.1:9',
};

/**
 * Runs the built CLI without blocking the event loop, so fake servers in the test process can answer.
 */
export function runSvc(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...OFFLINE_PROVIDERS, ...options.env },
      cwd: options.cwd,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => {
      stdout += b;
    });
    child.stderr.on('data', (b) => {
      stderr += b;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
