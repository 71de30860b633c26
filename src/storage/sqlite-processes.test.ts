import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { type CountResult, openStorage } from './index.js';

/**
 * better-sqlite3 is synchronous, so calls from one process never overlap inside SQLite. Separate
 * processes do: this is what proves the single-statement count and the migration lock hold under
 * SQLite's file locking, as with a server and an `svc admin` command on one file.
 */
const CHILD = `
const { openStorage } = await import(process.env.STORE_MODULE);
const until = (at) => new Promise((resolve) => setTimeout(resolve, Number(at) - Date.now()));
await until(process.env.OPEN_AT);
const storage = await openStorage(process.env.DATABASE_URL);
await until(process.env.COUNT_AT);
const results = [];
for (let i = 0; i < 5; i++) results.push(await storage.usage.countCiRun({ kind: 'user', id: 1 }, '2025-01', 10));
await storage.close();
process.stdout.write(JSON.stringify(results));
`;

function runChild(env: Record<string, string>): Promise<CountResult[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
      cwd: join(import.meta.dirname, '..', '..'),
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(JSON.parse(stdout) as CountResult[]);
      else reject(new Error(`child exited with ${code}: ${stderr}`));
    });
  });
}

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('four processes migrating and counting on one new SQLite file count exactly the limit', async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
  const url = `sqlite:${join(dir, 'svc.db')}`;
  const env = {
    DATABASE_URL: url,
    STORE_MODULE: pathToFileURL(join(import.meta.dirname, 'index.ts')).href,
    // Start lines, so that the processes really open (and migrate) and then count at the same time.
    OPEN_AT: String(Date.now() + 2500),
    COUNT_AT: String(Date.now() + 3000),
  };
  const results = (await Promise.all(Array.from({ length: 4 }, () => runChild(env)))).flat();

  const counted = results.filter((r) => r.counted);
  expect(counted.map((r) => r.used).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  expect(results.filter((r) => !r.counted).every((r) => r.used === 10)).toBe(true);
  const storage = await openStorage(url);
  try {
    expect(await storage.usage.ciRunsUsed({ kind: 'user', id: 1 }, '2025-01')).toBe(10);
  } finally {
    await storage.close();
  }
});
