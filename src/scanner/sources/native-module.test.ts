import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isCi } from '../../../test/helpers/ci.js';
import { loadObjectReader, OBJECT_READER_FILE, objectReaderUnavailableReason } from './native-module.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const linuxX64 = process.platform === 'linux' && process.arch === 'x64';
const built = existsSync(join(ROOT, 'dist', 'native', OBJECT_READER_FILE));
// In CI the addon must be there (npm run build fails there without rustc).
const skipLoad = !linuxX64 || (!built && !isCi());
if (skipLoad) {
  console.warn(
    linuxX64
      ? `dist/native/${OBJECT_READER_FILE} not built (npm run build:native, which needs rustc): loading tests skipped`
      : `no native object reader on ${process.platform} ${process.arch}: loading tests skipped`,
  );
}

describe.skipIf(skipLoad)('the native object reader in this checkout', () => {
  it('loads from dist/native/ and exposes its calls', () => {
    const reader = loadObjectReader();
    expect(objectReaderUnavailableReason()).toBeUndefined();
    expect(reader).not.toBeNull();
    expect(
      [
        reader?.open,
        reader?.read,
        reader?.listChanges,
        reader?.writeDiffIndex,
        reader?.close,
        reader?.releaseFreeMemory,
        reader?.keepAllocatorCompact,
      ].map((f) => typeof f),
    ).toEqual(['function', 'function', 'function', 'function', 'function', 'function', 'function']);
    reader?.releaseFreeMemory(); // gives glibc's free memory back; returns nothing

    // Loaded once: the same module every time.
    expect(loadObjectReader()).toBe(reader);
  });
});

describe.skipIf(skipLoad)('the object reader on threads of its own', () => {
  const scratchDirs: string[] = [];
  afterAll(() => {
    for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * In a fresh process with libuv's pool at four threads, each of them blocked opening a named pipe
   * no one writes to (as a slow disk or network file system would hold them): a read of the object
   * reader still answers, on a thread of its own (buffer_call.rs, worker_pool.rs). On libuv's pool
   * it waited until the pipes were opened for writing, which here happens only after the read's
   * answer or a second's wait.
   */
  it("answers while every thread of libuv's pool is taken", () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-reader-threads-'));
    scratchDirs.push(dir);
    const repo = join(dir, 'repo');
    const git = (...args: string[]) =>
      spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).stdout.trim();
    spawnSync('git', ['init', '-q', repo]);
    writeFileSync(join(repo, 'a.txt'), 'hello\n');
    git('add', 'a.txt');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.test', 'commit', '-qm', 'one');
    const blob = git('rev-parse', 'HEAD:a.txt');
    expect(blob).toMatch(/^[0-9a-f]{40}$/);
    const pipes = [0, 1, 2, 3].map((i) => join(dir, `pipe-${i}`));
    for (const pipe of pipes) expect(spawnSync('mkfifo', [pipe]).status).toBe(0);
    const seen = withAddonInFreshProcess<{ answeredFirst: boolean; status: number; content: string }>(
      `
      const { readFile } = require('node:fs/promises');
      const { openSync, closeSync } = require('node:fs');
      const pipes = JSON.parse(process.env.PIPES);
      // Each readFile holds a pool thread in open() until a writer opens its pipe.
      const blocked = pipes.map((pipe) => readFile(pipe));
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        for (const pipe of pipes) closeSync(openSync(pipe, 'w'));
      };
      const timer = setTimeout(release, 1000);
      setTimeout(() => {
        const db = holder.exports.open(process.env.OBJECTS, []);
        const out = Buffer.alloc(1024);
        holder.exports.read(db, Buffer.from(process.env.BLOB, 'hex'), 1 << 20, out, (error, used) => {
          const answeredFirst = !released;
          clearTimeout(timer);
          release();
          Promise.all(blocked).then(() => {
            holder.exports.close(db);
            const size = out.readUInt32LE(2);
            console.log(JSON.stringify({ answeredFirst, status: error ? -1 : out[0], content: out.toString('utf8', 6, 6 + size) }));
          });
        });
      }, 100);
    `,
      {
        UV_THREADPOOL_SIZE: '4',
        PIPES: JSON.stringify(pipes),
        OBJECTS: join(repo, '.git', 'objects'),
        BLOB: blob,
      },
    );
    expect(seen).toEqual({ answeredFirst: true, status: 0, content: 'hello\n' });
  });
});

describe.skipIf(skipLoad)('keepAllocatorCompact', () => {
  /**
   * In a fresh process: a 3 MB buffer, freed, then another. glibc maps the first on its own; once it
   * is freed glibc by default raises its threshold to 3 MB and serves the second from an arena, where
   * a freed one leaves a hole. Set up for a scan, the second is mapped on its own too (and unmapped
   * when freed). Measures the bytes of the process's anonymous mappings outside the brk heap (the
   * main arena's): a block mapped on its own adds its size there. Sizes, not a count of mappings of
   * that size, since the kernel merges a new mapping into an adjacent one.
   */
  const secondMapped = (compact: boolean) => {
    const seen = withAddonInFreshProcess<{
      firstMapped: boolean;
      firstUnmapped: boolean;
      secondMapped: boolean;
    }>(
      `
      if (process.env.COMPACT === '1') holder.exports.keepAllocatorCompact();
      const size = 3 << 20;
      const mappedBytes = () => readFileSync('/proc/self/maps', 'utf8').split('\\n').reduce((sum, line) => {
        const m = /^([0-9a-f]+)-([0-9a-f]+) rw-p 00000000 00:00 0\\s*$/.exec(line);
        return m === null ? sum : sum + parseInt(m[2], 16) - parseInt(m[1], 16);
      }, 0);
      (async () => {
        const before = mappedBytes();
        let first = Buffer.allocUnsafeSlow(size);
        const firstMapped = mappedBytes() - before >= size;
        first = null;
        // V8 may free the buffer's memory after gc() returns (on a sweeper thread): wait until it is
        // gone, as glibc raises its threshold only at that free.
        let withoutFirst = mappedBytes();
        for (let tries = 0; withoutFirst - before >= size && tries < 500; tries += 1) {
          gc();
          await new Promise((resolve) => setTimeout(resolve, 10));
          withoutFirst = mappedBytes();
        }
        const firstUnmapped = withoutFirst - before < size;
        const second = Buffer.allocUnsafeSlow(size);
        const secondMapped = mappedBytes() - withoutFirst >= size;
        console.log(JSON.stringify({ firstMapped, firstUnmapped, secondMapped, size: second.length }));
      })();
    `,
      { COMPACT: compact ? '1' : '0' },
    );
    expect(seen.firstMapped).toBe(true);
    expect(seen.firstUnmapped).toBe(true);
    return seen.secondMapped;
  };

  it('maps large blocks on their own after larger ones were freed, where glibc would not', () => {
    expect(secondMapped(false)).toBe(false);
    expect(secondMapped(true)).toBe(true);
  });

  /**
   * In a fresh process set up for a scan: twelve 128 KB buffers (below the mmap threshold: from the
   * main arena, the brk heap), then all freed. glibc gives the free memory at the heap's top back to
   * the system past its trim threshold: at 128 KB (glibc's default) nearly all 1.5 MB of it, at the
   * scan's 2 MB none. Measures the heap's size (its `[heap]` mapping) after the allocations and once
   * they are freed.
   */
  it('keeps up to 2 MB free at the heap top, not given back to be faulted in again', () => {
    const { full, after } = withAddonInFreshProcess<{ full: number; after: number }>(`
      holder.exports.keepAllocatorCompact();
      const heap = () => {
        const line = readFileSync('/proc/self/maps', 'utf8').split('\\n').find((l) => l.endsWith('[heap]'));
        const m = /^([0-9a-f]+)-([0-9a-f]+)/.exec(line);
        return parseInt(m[2], 16) - parseInt(m[1], 16);
      };
      (async () => {
        let buffers = Array.from({ length: 12 }, () => Buffer.allocUnsafeSlow(128 << 10).fill(1));
        const full = heap();
        buffers = null;
        // V8 frees the buffers' memory on a later GC, maybe on another thread: until the heap stops
        // moving (or 2 s).
        let after = heap();
        for (let tries = 0, still = 0; tries < 200 && still < 20; tries += 1) {
          gc();
          await new Promise((resolve) => setTimeout(resolve, 10));
          const now = heap();
          still = now === after ? still + 1 : 0;
          after = now;
        }
        console.log(JSON.stringify({ full, after }));
      })();
    `);
    expect(full - after).toBeLessThan(512 << 10);
  });
});

/**
 * Runs `script` in a fresh Node (with gc() exposed) that has loaded the built addon as
 * `holder.exports` and `readFileSync` from node:fs; what it printed as JSON.
 */
function withAddonInFreshProcess<T>(script: string, env: NodeJS.ProcessEnv = {}): T {
  const preamble = `
    const { readFileSync } = require('node:fs');
    const holder = { exports: {} };
    process.dlopen(holder, process.env.ADDON);
  `;
  const run = spawnSync(process.execPath, ['--expose-gc', '-e', preamble + script], {
    encoding: 'utf8',
    env: { ...process.env, ADDON: join(ROOT, 'dist', 'native', OBJECT_READER_FILE), ...env },
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

/** A fresh process importing `module` (this module or a copy), printing what loading gave. */
function loadInChild(module: string, env: NodeJS.ProcessEnv = {}) {
  const script = `
    const { loadObjectReader, objectReaderUnavailableReason } = await import(process.env.MODULE);
    const reader = loadObjectReader();
    console.log(JSON.stringify({ loaded: reader !== null, reason: objectReaderUnavailableReason() ?? null }));
  `;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...env, MODULE: pathToFileURL(module).href },
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { loaded: boolean; reason: string | null };
}

describe('where the native object reader is not loaded', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A copy of this module three folders down a new package root, as in src/scanner/sources/. */
  function copyUnder(): { root: string; module: string } {
    const root = mkdtempSync(join(tmpdir(), 'svc-native-module-'));
    dirs.push(root);
    writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n');
    const folder = join(root, 'src', 'scanner', 'sources');
    mkdirSync(folder, { recursive: true });
    const module = join(folder, 'native-module.ts');
    copyFileSync(join(import.meta.dirname, 'native-module.ts'), module);
    return { root, module };
  }

  it('SVC_OBJECT_READER=git: not loaded, and says so', () => {
    expect(loadInChild(join(import.meta.dirname, 'native-module.ts'), { SVC_OBJECT_READER: 'git' })).toEqual({
      loaded: false,
      reason: 'SVC_OBJECT_READER=git',
    });
  });

  it.skipIf(!linuxX64)('no dist/native/ file: null, and the reason names the file', () => {
    const { root, module } = copyUnder();
    const { loaded, reason } = loadInChild(module);
    expect(loaded).toBe(false);
    expect(reason).toBe(
      `${join(root, 'dist', 'native', OBJECT_READER_FILE)} not found (npm run build:native builds it)`,
    );
  });

  it.skipIf(!linuxX64)('a file dlopen refuses: null, with its error on one line', () => {
    const { root, module } = copyUnder();
    mkdirSync(join(root, 'dist', 'native'), { recursive: true });
    writeFileSync(join(root, 'dist', 'native', OBJECT_READER_FILE), 'not an ELF file\n');
    const { loaded, reason } = loadInChild(module);
    expect(loaded).toBe(false);
    expect(reason).toContain(OBJECT_READER_FILE);
    expect(reason).not.toContain('\n');
  });
});
