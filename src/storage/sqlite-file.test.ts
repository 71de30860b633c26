import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { retryWhileBusy } from './sqlite-file.js';

function busy(): Error {
  return Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
}

describe('retryWhileBusy', () => {
  it('tries again after SQLITE_BUSY and returns the first answer', () => {
    let tries = 0;
    const answer = retryWhileBusy(() => {
      tries++;
      if (tries < 3) throw busy();
      return 'wal';
    }, 2000);
    expect([answer, tries]).toEqual(['wal', 3]);
  });

  it('throws any other error at once', () => {
    let tries = 0;
    const failure = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
    expect(() =>
      retryWhileBusy(() => {
        tries++;
        throw failure;
      }, 2000),
    ).toThrow(failure);
    expect(tries).toBe(1);
  });

  it('gives up with the last SQLITE_BUSY once the time is out', () => {
    const started = Date.now();
    expect(() =>
      retryWhileBusy(() => {
        throw busy();
      }, 150),
    ).toThrow('database is locked');
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  });
});

/**
 * Each child opens a fresh file per round at the same instant as the others. Without the retry,
 * about one round in eight failed here with "database is locked" on the switch to WAL (the race
 * that failed a CI run of sqlite-processes.test.ts).
 */
const CHILD = `
const { openSqliteFile } = await import(process.env.MODULE);
const start = Number(process.env.START_AT);
for (let round = 0; round < Number(process.env.ROUNDS); round++) {
  const at = start + round * 60;
  while (Date.now() < at) {}
  openSqliteFile(process.env.DIR + '/round-' + round + '.db').close();
}
`;

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('six processes opening the same new files at the same instants all switch them to WAL', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'svc-sqlite-open-'));
  dir = folder;
  const env = {
    ...process.env,
    MODULE: pathToFileURL(join(import.meta.dirname, 'sqlite-file.ts')).href,
    DIR: folder,
    ROUNDS: '30',
    START_AT: String(Date.now() + 3000),
  };
  const exits = await Promise.all(
    Array.from(
      { length: 6 },
      () =>
        new Promise<string>((resolve) => {
          const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
            cwd: join(import.meta.dirname, '..', '..'),
            env,
          });
          let stderr = '';
          child.stderr.on('data', (chunk) => {
            stderr += chunk;
          });
          child.on('close', (code) =>
            resolve(
              code === 0
                ? 'ok'
                : `exit ${code}: ${stderr.split('\n').find((l) => l.includes('Error')) ?? stderr}`,
            ),
          );
        }),
    ),
  );
  expect(exits).toEqual(Array(6).fill('ok'));
}, 30_000);
