// npm run build:native (part of npm run build): dist/native/object-reader-linux-x64.node, the Node-API
// addon through which the scanner reads git objects in-process. Its source is one crate,
// native/object-reader/src/lib.rs, compiled by plain rustc (no cargo, no crates); the napi_* and zlib
// symbols it leaves undefined are Node's own, resolved when Node loads the addon.
// Linux x86-64 only: elsewhere nothing is built. Without rustc ($RUSTC, else rustc on the PATH, else
// ~/.cargo/bin/rustc) the build warns and goes on, and the scanner reads objects through
// `git cat-file`; in CI (CI set to anything but empty, 0 or false) a missing rustc fails the build.
//   --check-reproducible   build twice, in two folders, and fail unless both addons are byte for byte equal
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Relative to root (rustc runs there): the path is what panic messages and file!() carry.
const source = join('native', 'object-reader', 'src', 'lib.rs');
const name = 'object-reader-linux-x64.node';
const out = join(root, 'dist', 'native', name);
const sha256 = (data) => createHash('sha256').update(data).digest('hex');

function fail(message) {
  console.error(`build:native: ${message}`);
  process.exit(1);
}

function isCi(env = process.env) {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

/** The rustc to use and its version line, or undefined when there is none. */
function findRustc() {
  const cargoHome = process.env.CARGO_HOME ?? join(homedir(), '.cargo');
  const candidates =
    process.env.RUSTC !== undefined && process.env.RUSTC !== ''
      ? [process.env.RUSTC]
      : ['rustc', join(cargoHome, 'bin', 'rustc')];
  for (const rustc of candidates) {
    const run = spawnSync(rustc, ['--version'], { encoding: 'utf8' });
    if (run.error === undefined && run.status === 0) return { rustc, version: run.stdout.trim() };
  }
  return undefined;
}

/** One compilation into a new temporary folder (rustc leaves its intermediate files beside the output). */
function compile(rustc) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-build-native-'));
  const file = join(dir, name);
  const args = [
    '--edition',
    '2021',
    '--crate-type',
    'cdylib',
    '--crate-name',
    'svc_object_reader',
    '-C',
    'opt-level=3',
    '-C',
    'codegen-units=1',
    // No symbol table and no debug information: napi_register_module_v1 stays in the dynamic one.
    '-C',
    'strip=symbols',
    // No path of this checkout in the output: the same sources give the same bytes wherever they are.
    `--remap-path-prefix=${root}=.`,
    // zlib is not linked: Node exports its own (inflate, inflateInit_), which the addon's calls
    // resolve to when Node loads it, as they would even with a libz linked in (the executable's
    // symbols come first). No build or run-time dependency on the system's zlib.
    '-o',
    file,
    source,
  ];
  const run = spawnSync(rustc, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'] });
  if (run.error !== undefined || run.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    // rustc's diagnostics in full, then the one-line verdict.
    if (run.stderr) process.stderr.write(run.stderr);
    fail(`rustc failed on ${source} (${run.error?.message ?? `exit ${run.status ?? run.signal}`})`);
  }
  const bytes = readFileSync(file);
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.log(
    `build:native: nothing to build on ${process.platform} ${process.arch} (linux x64 only); the scanner reads objects through git cat-file`,
  );
  process.exit(0);
}
const found = findRustc();
if (found === undefined) {
  if (isCi()) fail('rustc not found (RUSTC, PATH, ~/.cargo/bin): CI must build the native object reader');
  console.warn(
    `warning: build:native: rustc not found (RUSTC, PATH, ~/.cargo/bin): ${name} not built; the scanner will read objects through git cat-file`,
  );
  process.exit(0);
}
if (!existsSync(join(root, source))) fail(`${source} not found`);

const first = compile(found.rustc);
if (process.argv.includes('--check-reproducible')) {
  const second = compile(found.rustc);
  if (!first.equals(second)) fail(`not reproducible: ${sha256(first)} then ${sha256(second)}`);
  console.log('build:native: reproducible: two builds gave the same bytes');
}
// Written beside and renamed over it: a process that has the old addon loaded keeps its mapping intact
// (writing into the loaded file would change the code under it).
mkdirSync(dirname(out), { recursive: true });
const partial = `${out}.${process.pid}.partial`;
writeFileSync(partial, first, { mode: 0o755 });
renameSync(partial, out);
console.log(
  `build:native: dist/native/${name}: ${(first.length / 1e3).toFixed(0)} kB, sha256 ${sha256(first)}, ${found.version}`,
);
