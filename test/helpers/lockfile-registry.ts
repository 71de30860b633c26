import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * An npm registry on loopback that holds exactly the packages of this project's package-lock.json,
 * their tarballs read from npm's own cache (where `npm ci` left them): what a global install of the
 * packed tarball needs, without the internet. Packuments carry what the lock says of each version
 * (dependencies, optional and peer dependencies, bin, engines, os, cpu) and its integrity.
 */
export class LockfileRegistry {
  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly served: string[],
  ) {}

  static async start(lockfile: string): Promise<LockfileRegistry> {
    const lock = JSON.parse(readFileSync(lockfile, 'utf8')) as {
      packages: Record<string, Record<string, unknown> & { version?: string; integrity?: string }>;
    };
    const byName = new Map<string, Map<string, Record<string, unknown>>>();
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (path === '' || entry.link === true || entry.version === undefined || entry.integrity === undefined)
        continue;
      const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
      const versions = byName.get(name) ?? new Map();
      versions.set(entry.version, entry);
      byName.set(name, versions);
    }
    // npm's own cacache (bundled with npm), over npm's cache folder.
    const npmRoot = execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim();
    const cacache = createRequire(join(npmRoot, 'npm', 'package.json'))('cacache') as {
      get: { byDigest(cache: string, integrity: string): Promise<Buffer> };
    };
    const cache = join(
      execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim(),
      '_cacache',
    );

    const served: string[] = [];
    let base = '';
    const server = createServer(async (req, res) => {
      const path = decodeURIComponent((req.url ?? '/').split('?')[0]!.slice(1));
      served.push(path);
      const tarball = /^(.+)\/-\/[^/]+-(\d[^/]*)\.tgz$/.exec(path);
      if (tarball) {
        const entry = byName.get(tarball[1]!)?.get(tarball[2]!);
        const bytes =
          entry === undefined
            ? null
            : await cacache.get.byDigest(cache, String(entry.integrity)).catch(() => null);
        if (bytes === null) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes);
        return;
      }
      const versions = byName.get(path);
      if (versions === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      const basename = path.slice(path.lastIndexOf('/') + 1);
      const packument = {
        name: path,
        'dist-tags': { latest: [...versions.keys()].at(-1) },
        versions: Object.fromEntries(
          [...versions].map(([version, e]) => [
            version,
            {
              name: path,
              version,
              ...pick(e, [
                'dependencies',
                'optionalDependencies',
                'peerDependencies',
                'peerDependenciesMeta',
                'bin',
                'engines',
                'os',
                'cpu',
                'hasInstallScript',
              ]),
              dist: { tarball: `${base}/${path}/-/${basename}-${version}.tgz`, integrity: e.integrity },
            },
          ]),
        ),
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return new LockfileRegistry(server, base, served);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function pick(entry: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => entry[k] !== undefined).map((k) => [k, entry[k]]));
}
