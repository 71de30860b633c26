import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/**
 * What dependency-cruiser (npm run lint:layers) cannot see, because it is a use and not an import:
 * only the command line reads the process's arguments or decides how it exits.
 */
describe('layering beyond imports', () => {
  it('only src/cli reads process.argv or calls process.exit', () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => !relative(SRC, file).startsWith('cli/'))
      .filter((file) => /process\.(argv|exit\b|exitCode)/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
  });
});

describe('what a scan loads', () => {
  it('svc scan and its error handling load no database driver (start-up time of every CI scan)', () => {
    // The built modules the scan command runs through; pg and better-sqlite3 are CommonJS, so anything
    // that pulled them in shows in require's cache.
    const dist = join(import.meta.dirname, '..', 'dist', 'cli');
    const loaded = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { createRequire } from 'node:module';
         await import(${JSON.stringify(join(dist, 'run.js'))});
         await import(${JSON.stringify(join(dist, 'scan-command.js'))});
         console.log(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));`,
      ],
      { encoding: 'utf8' },
    );
    const drivers = (JSON.parse(loaded) as string[]).filter((file) =>
      /node_modules[\\/](pg|better-sqlite3|ioredis)[\\/]/.test(file),
    );
    expect(drivers).toEqual([]);
  });
});
