import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeCloudKeyId } from '../helpers/fake-secrets.js';
import { TestRepo } from '../helpers/git-repo.js';
import { LockfileRegistry } from '../helpers/lockfile-registry.js';

/**
 * The install path a newcomer takes (issue 32): `npm pack`, then a global install of the tarball into
 * a fresh prefix, and the `svc` it puts on the PATH scans a history. The registry is a loopback one
 * holding this project's locked packages (from npm's cache): no test reaches the internet.
 */
const ROOT = join(import.meta.dirname, '..', '..');

let work: string;
let registry: LockfileRegistry;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'svc-pack-'));
  registry = await LockfileRegistry.start(join(ROOT, 'package-lock.json'));
});
afterAll(async () => {
  await registry?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('npm pack, then npm install -g of the tarball', () => {
  it('puts a working svc on the PATH, named svc-scanner, without the executable or the tests', async () => {
    // Asynchronously: the registry answers from this process.
    const npm = (args: string[], cwd: string) =>
      promisify(execFile)('npm', args, {
        cwd,
        encoding: 'utf8',
        env: {
          ...process.env,
          npm_config_registry: registry.url,
          npm_config_cache: join(work, 'npm-cache'),
          npm_config_audit: 'false',
          npm_config_fund: 'false',
          npm_config_update_notifier: 'false',
        },
      });
    // --ignore-scripts: the tarball is packed from the build this run already made.
    await npm(['pack', '--ignore-scripts', '--pack-destination', work], ROOT);
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    expect(tarball).toMatch(/^svc-scanner-\d+\.\d+\.\d+\.tgz$/);
    const listed = execFileSync('tar', ['tzf', join(work, tarball!)], { encoding: 'utf8' }).split('\n');
    expect(listed).toContain('package/dist/cli/main.js');
    expect(listed).toContain('package/.pre-commit-hooks.yaml');
    expect(listed.filter((f) => /svc-linux-x64|\.test\.|\/sea\/|\.map$/.test(f))).toEqual([]);

    // The scanner alone (the service's native SQLite module is built only without --ignore-scripts).
    const prefix = join(work, 'prefix');
    await npm(['install', '--global', '--prefix', prefix, '--ignore-scripts', join(work, tarball!)], work);
    const svc = join(prefix, 'bin', 'svc');
    expect(existsSync(svc)).toBe(true);
    expect(execFileSync(svc, ['--version'], { encoding: 'utf8' }).trim()).toMatch(/^\d+\.\d+\.\d+$/);

    const repo = new TestRepo();
    try {
      repo.commitFiles({ 'config/deploy.env': `AWS=${fakeCloudKeyId(971)}\n` });
      const scan = spawnSync(svc, ['scan', repo.dir, '--no-verify', '--format', 'json'], {
        encoding: 'utf8',
        env: { PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, HOME: work },
      });
      expect(scan.status, scan.stderr).toBe(1);
      expect(JSON.parse(scan.stdout).findings.map((f: { fingerprint: string }) => f.fingerprint)).toEqual([
        expect.stringMatching(/^cloud-access-key-id:[0-9a-f]{12}:config\/deploy\.env:1$/),
      ]);
    } finally {
      repo.cleanup();
    }
    // Everything came from the loopback registry.
    expect(registry.served.length).toBeGreaterThan(0);
  });
});
