import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCi } from '../helpers/ci.js';

/**
 * The native object reader's build (build/build-native.mjs) and its place in what ships: the npm
 * package's dist/native/ and the single executable's asset, which the executable can load.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const ADDON = join(ROOT, 'dist', 'native', 'object-reader-linux-x64.node');
const BINARY = join(ROOT, 'dist', 'svc-linux-x64');

const linuxX64 = process.platform === 'linux' && process.arch === 'x64';

describe.skipIf(!linuxX64)('build-native without rustc', () => {
  const buildWithout = (env: NodeJS.ProcessEnv) =>
    spawnSync(process.execPath, [join(ROOT, 'build', 'build-native.mjs')], {
      // RUSTC names the only rustc tried: a missing one is rustc missing.
      env: { ...process.env, RUSTC: join(tmpdir(), 'svc-no-such-rustc'), ...env },
      encoding: 'utf8',
    });

  it('warns and succeeds outside CI: the scanner reads objects through git cat-file', () => {
    const r = buildWithout({ CI: '' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr.trim()).toBe(
      'warning: build:native: rustc not found (RUSTC, PATH, ~/.cargo/bin): object-reader-linux-x64.node not built; the scanner will read objects through git cat-file',
    );
  });

  it('fails in CI', () => {
    const r = buildWithout({ CI: 'true' });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(
      'build:native: rustc not found (RUSTC, PATH, ~/.cargo/bin): CI must build the native object reader',
    );
  });
});

const skipShipped = !linuxX64 || (!(existsSync(ADDON) && existsSync(BINARY)) && !isCi());
if (skipShipped && linuxX64) {
  console.warn(
    'dist/native/object-reader-linux-x64.node or dist/svc-linux-x64 not built (npm run build with rustc, npm run build:binary): shipping tests skipped',
  );
}

describe.skipIf(skipShipped)('the native object reader as shipped', () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'svc-native-ship-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('is in the npm package', () => {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    expect(files).toContain('dist/native/object-reader-linux-x64.node');
  });

  it('is an asset of the single executable, which loads it and leaves no file behind', async () => {
    // The executable carries the addon as built.
    expect(readFileSync(BINARY).includes(readFileSync(ADDON))).toBe(true);

    // The loader as the executable's bundle has it (CommonJS, import.meta.url undefined: build-binary's
    // esbuild options), run inside the executable by a --require preload: node:sea answers there as it
    // does for the executable's own script.
    const loader = join(work, 'native-module.cjs');
    await build({
      entryPoints: [join(ROOT, 'src', 'scanner', 'sources', 'native-module.ts')],
      outfile: loader,
      bundle: true,
      platform: 'node',
      target: 'node24',
      format: 'cjs',
      define: { 'import.meta.url': 'undefined' },
      logLevel: 'error',
    });
    const preload = join(work, 'preload.cjs');
    writeFileSync(
      preload,
      `const { loadObjectReader, objectReaderUnavailableReason } = require(${JSON.stringify(loader)});
const reader = loadObjectReader();
process.stdout.write(JSON.stringify({
  sea: require('node:sea').isSea(),
  exports: reader === null ? null : Object.keys(reader).sort(),
  reason: objectReaderUnavailableReason() ?? null,
}));
process.exit(0);
`,
    );
    // Its own temporary folder, to see that the addon's folder is gone once loaded.
    const temp = join(work, 'tmp');
    mkdirSync(temp);
    const r = spawnSync(BINARY, ['--version'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: `--require ${preload}`, TMPDIR: temp, SVC_OBJECT_READER: '' },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ sea: true, exports: ['close', 'open', 'read'], reason: null });
    expect(readdirSync(temp)).toEqual([]);
  });
});
