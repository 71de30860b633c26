import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCi } from '../helpers/ci.js';
import { fakeCodehostToken } from '../helpers/fake-secrets.js';
import { TestRepo } from '../helpers/git-repo.js';

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

  it('is an asset of the single executable, which reads blobs through it and leaves no file behind', () => {
    // The executable carries the addon as built.
    expect(readFileSync(BINARY).includes(readFileSync(ADDON))).toBe(true);

    const repo = new TestRepo();
    try {
      repo.commitFiles(
        { 'config.js': `const token = "${fakeCodehostToken()}";\n`, 'README.md': '# demo\n' },
        'add',
      );
      repo.commitFiles({ 'README.md': '# demo\nmore\n' }, 'edit');
      // Its own temporary folder, to see that the addon's folder is gone once loaded; git's trace
      // names every git the scan starts.
      const scan = (env: NodeJS.ProcessEnv) => {
        const temp = mkdtempSync(join(work, 'tmp-'));
        const trace = join(work, `trace-${Date.now()}-${Math.random()}`);
        const r = spawnSync(BINARY, ['scan', '--no-verify', '--format', 'json', repo.dir], {
          encoding: 'utf8',
          env: { ...process.env, TMPDIR: temp, GIT_TRACE: trace, ...env },
        });
        const gits = readFileSync(trace, 'utf8');
        return { r, gits, left: readdirSync(temp) };
      };
      const native = scan({ SVC_OBJECT_READER: '' });
      expect(native.r.status, native.r.stderr).toBe(1); // a finding
      // The commits walked and the blobs read in the executable's own process: git only named the refs.
      expect(native.gits).toContain('for-each-ref');
      expect(native.gits).not.toContain('rev-list');
      expect(native.gits).not.toContain('cat-file --batch');
      expect(native.left).toEqual([]);

      const git = scan({ SVC_OBJECT_READER: 'git' });
      expect(git.r.status, git.r.stderr).toBe(1);
      expect(git.gits).toContain('cat-file --batch');
      expect(git.gits).toContain('rev-list');
      expect(native.r.stdout).toBe(git.r.stdout);
      expect(JSON.parse(native.r.stdout).findings).toHaveLength(1);
    } finally {
      repo.cleanup();
    }
  });
});
