import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Ecosystem } from '../../src/hooks/types.js';

/** How a registry (or one package on it) misbehaves instead of answering. */
export type Behavior = 'hang' | 500 | 'not-json' | 429 | 'redirect';

/** A registry of the fake: one of the five ecosystems, or OSV. */
export type FakeTarget = Ecosystem | 'OSV';

export interface FakePackage {
  /** Every published version and when it was published. */
  versions: Record<string, Date | string>;
  /** npm `time.created`, crates.io `created_at`; defaults to the earliest version date. */
  created?: Date | string;
  /**
   * npm `dist-tags` (default `latest`: the newest release by date); for PyPI, crates.io, Go and NuGet
   * only `latest` is read (`info.version`, `newest_version`, `@latest`).
   */
  distTags?: Record<string, string>;
  /** crates.io: yanked versions. */
  yanked?: string[];
}

export interface FakeAdvisory {
  /** The affected versions; absent: every version (as OSV's malicious-package entries usually say). */
  versions?: string[];
  aliases?: string[];
}

export interface RecordedRequest {
  registry: FakeTarget | null;
  method: string;
  /** The raw request target, as sent (percent-encoding kept). */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Advisory extends FakeAdvisory {
  id: string;
  name: string;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const PREFIX: Record<FakeTarget, string> = {
  npm: '/npm',
  PyPI: '/pypi',
  'crates.io': '/crates',
  Go: '/goproxy',
  NuGet: '/nuget',
  OSV: '/osv',
};

const iso = (d: Date | string) => new Date(d).toISOString();
const normalizePypi = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

/** How each registry identifies a package regardless of spelling. */
function packageKey(ecosystem: Ecosystem, name: string): string {
  switch (ecosystem) {
    case 'PyPI':
      return normalizePypi(name);
    case 'crates.io':
      return name.toLowerCase().replace(/-/g, '_');
    case 'NuGet':
      return name.toLowerCase();
    default:
      return name;
  }
}

/**
 * One real HTTP server on 127.0.0.1 that plays the five package registries and OSV, each under its
 * own prefix (`urls`): the npm registry (packuments), PyPI's JSON API, crates.io's API, a Go module
 * proxy, a NuGet flat container and OSV's query API. Documents have the real shapes; quirks are
 * real too: PyPI redirects names that are not normalized, crates.io refuses requests without a
 * User-Agent, the Go proxy refuses capitals in paths, the flat container knows only lowercase ids.
 * Every request is recorded.
 */
export class FakeRegistries {
  readonly requests: RecordedRequest[] = [];
  /** OSV results per page; lower it to exercise `next_page_token`. */
  osvPageSize = 100;
  private readonly packages = new Map<string, { name: string; spec: FakePackage }>();
  private readonly advisories: Advisory[] = [];
  private readonly behaviors = new Map<string, Behavior>();
  private server!: Server;
  private base = '';

  static async start(): Promise<FakeRegistries> {
    const fake = new FakeRegistries();
    fake.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => fake.handle(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.base = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  /** The base URLs to configure, in `createRegistries` and `Config.registries` form. */
  get urls() {
    return {
      npm: this.base + PREFIX.npm,
      pypi: this.base + PREFIX.PyPI,
      crates: this.base + PREFIX['crates.io'],
      goproxy: this.base + PREFIX.Go,
      nuget: this.base + PREFIX.NuGet,
      osv: this.base + PREFIX.OSV,
    };
  }

  /** The SVC_*_URL variables pointing at the fake. */
  get env(): Record<string, string> {
    const u = this.urls;
    return {
      SVC_NPM_REGISTRY_URL: u.npm,
      SVC_PYPI_URL: u.pypi,
      SVC_CRATES_URL: u.crates,
      SVC_GOPROXY_URL: u.goproxy,
      SVC_NUGET_URL: u.nuget,
      SVC_OSV_URL: u.osv,
    };
  }

  addPackage(ecosystem: Ecosystem, name: string, spec: FakePackage): this {
    this.packages.set(`${ecosystem}\0${packageKey(ecosystem, name)}`, { name, spec });
    return this;
  }

  /** An OSV advisory for the package; only ids starting `MAL-` mark it malicious. */
  addAdvisory(ecosystem: Ecosystem, name: string, id: string, advisory: FakeAdvisory = {}): this {
    this.advisories.push({ ...advisory, id, name: `${ecosystem}\0${packageKey(ecosystem, name)}` });
    return this;
  }

  addMalware(ecosystem: Ecosystem, name: string, id = 'MAL-2024-1234', advisory: FakeAdvisory = {}): this {
    return this.addAdvisory(ecosystem, name, id, advisory);
  }

  /**
   * Makes a whole registry, or one package on it (by name, any spelling the registry accepts),
   * misbehave; null restores it. A package's behavior wins over its registry's.
   */
  setBehavior(target: FakeTarget, behavior: Behavior | null, name?: string): this {
    const key =
      name === undefined ? target : `${target}\0${target === 'OSV' ? name : packageKey(target, name)}`;
    if (behavior === null) this.behaviors.delete(key);
    else this.behaviors.set(key, behavior);
    return this;
  }

  requestsTo(target: FakeTarget): RecordedRequest[] {
    return this.requests.filter((r) => r.registry === target);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const raw = req.url ?? '/';
    const pathname = raw.split('?')[0]!;
    const registry =
      (Object.keys(PREFIX) as FakeTarget[]).find((t) => pathname.startsWith(`${PREFIX[t]}/`)) ?? null;
    this.requests.push({ registry, method: req.method ?? '', path: raw, headers: req.headers, body });
    const answer =
      registry === null
        ? json(404, { error: 'no such registry' })
        : this.route(registry, req, pathname.slice(PREFIX[registry].length), body);
    if (answer === null) return; // 'hang': never answers
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  }

  /** The behavior forced on this package or registry, as an answer; undefined when none is. */
  private forced(target: FakeTarget, name: string): Answer | null | undefined {
    const key = `${target}\0${target === 'OSV' ? name : packageKey(target, name)}`;
    const behavior = this.behaviors.get(key) ?? this.behaviors.get(target);
    switch (behavior) {
      case undefined:
        return undefined;
      case 'hang':
        return null;
      case 500:
        return json(500, { error: 'internal server error' });
      case 429:
        return { ...json(429, { error: 'too many requests' }), headers: { 'retry-after': '30' } };
      case 'not-json':
        return { status: 200, headers: { 'content-type': 'text/html' }, body: '<html>maintenance</html>' };
      case 'redirect':
        return { status: 302, headers: { location: `${this.base}/elsewhere` }, body: '' };
    }
  }

  private find(ecosystem: Ecosystem, name: string) {
    return this.packages.get(`${ecosystem}\0${packageKey(ecosystem, name)}`);
  }

  private route(target: FakeTarget, req: IncomingMessage, path: string, body: string): Answer | null {
    switch (target) {
      case 'npm':
        return this.npm(path);
      case 'PyPI':
        return this.pypi(path);
      case 'crates.io':
        return this.crates(req, path);
      case 'Go':
        return this.go(path);
      case 'NuGet':
        return this.nuget(path);
      case 'OSV':
        return this.osv(req, path, body);
    }
  }

  /** `GET /{name}`, scoped names as `@scope%2Fname`. */
  private npm(path: string): Answer | null {
    const m = /^\/([^/]+)$/.exec(path);
    if (!m) return json(404, { error: 'Not found' });
    const name = decodeURIComponent(m[1]!);
    const forced = this.forced('npm', name);
    if (forced !== undefined) return forced;
    const pkg = this.find('npm', name);
    if (!pkg) return json(404, { error: 'Not found' });
    const { spec } = pkg;
    const entries = Object.entries(spec.versions);
    const created = iso(spec.created ?? earliestDate(entries));
    if (entries.length === 0) {
      return json(200, {
        _id: name,
        name,
        time: { created, modified: created, unpublished: { time: created, versions: [] } },
      });
    }
    const latest = spec.distTags?.latest ?? newestRelease(entries);
    return json(200, {
      _id: name,
      _rev: '3-0123456789abcdef',
      name,
      description: `The ${name} package`,
      'dist-tags': { latest, ...spec.distTags },
      versions: Object.fromEntries(
        entries.map(([v]) => [
          v,
          {
            name,
            version: v,
            main: 'index.js',
            dist: { shasum: '0'.repeat(40), tarball: `${this.urls.npm}/${name}/-/${name}-${v}.tgz` },
          },
        ]),
      ),
      time: {
        created,
        modified: iso(latestDate(entries)),
        ...Object.fromEntries(entries.map(([v, d]) => [v, iso(d)])),
      },
      license: 'MIT',
    });
  }

  /** `GET /pypi/{name}/json`; names that are not normalized are redirected, as PyPI does. */
  private pypi(path: string): Answer | null {
    const m = /^\/pypi\/([^/]+)\/json$/.exec(path);
    if (!m) return json(404, { message: 'Not Found' });
    const name = decodeURIComponent(m[1]!);
    if (normalizePypi(name) !== name) {
      return {
        status: 301,
        headers: { location: `${PREFIX.PyPI}/pypi/${normalizePypi(name)}/json` },
        body: '',
      };
    }
    const forced = this.forced('PyPI', name);
    if (forced !== undefined) return forced;
    const pkg = this.find('PyPI', name);
    if (!pkg) return json(404, { message: 'Not Found' });
    const entries = Object.entries(pkg.spec.versions);
    const latest = pkg.spec.distTags?.latest ?? newestRelease(entries, (v) => /[a-z]/i.test(v));
    const files = (v: string, d: Date | string) => {
      const sdist = new Date(d);
      const wheel = new Date(sdist.getTime() + 60_000);
      return [sdist, wheel].map((t, i) => ({
        filename: i === 0 ? `${pkg.name}-${v}.tar.gz` : `${pkg.name}-${v}-py3-none-any.whl`,
        packagetype: i === 0 ? 'sdist' : 'bdist_wheel',
        upload_time: t.toISOString().replace(/\.\d+Z$/, ''),
        upload_time_iso_8601: t.toISOString().replace(/Z$/, '123Z'),
        yanked: false,
        url: `https://files.example/${pkg.name}-${v}`,
      }));
    };
    return json(200, {
      info: { name: pkg.name, version: latest, summary: `The ${pkg.name} project`, yanked: false },
      last_serial: 123456,
      releases: Object.fromEntries(entries.map(([v, d]) => [v, files(v, d)])),
      urls:
        latest === undefined || pkg.spec.versions[latest] === undefined
          ? []
          : files(latest, pkg.spec.versions[latest]),
      vulnerabilities: [],
    });
  }

  /** `GET /api/v1/crates/{name}`; 403 without a User-Agent of its own, as crates.io answers. */
  private crates(req: IncomingMessage, path: string): Answer | null {
    const m = /^\/api\/v1\/crates\/([^/]+)$/.exec(path);
    if (!m) return json(404, { errors: [{ detail: 'Not Found' }] });
    const agent = req.headers['user-agent'] ?? '';
    if (agent === '' || agent === 'node' || agent === 'undici') {
      return json(403, {
        errors: [{ detail: 'We require that all requests include a `User-Agent` header.' }],
      });
    }
    const name = decodeURIComponent(m[1]!);
    const forced = this.forced('crates.io', name);
    if (forced !== undefined) return forced;
    const pkg = this.find('crates.io', name);
    if (!pkg) return json(404, { errors: [{ detail: `crate \`${name}\` does not exist` }] });
    const entries = Object.entries(pkg.spec.versions);
    const yanked = new Set(pkg.spec.yanked ?? []);
    const byNumber = entries.map(([v]) => v).sort(compareLoose);
    const stable = byNumber.filter((v) => !v.includes('-') && !yanked.has(v));
    return json(200, {
      crate: {
        id: pkg.name,
        name: pkg.name,
        created_at: iso(pkg.spec.created ?? earliestDate(entries)),
        updated_at: iso(latestDate(entries)),
        max_version: byNumber.at(-1) ?? '0.0.0',
        max_stable_version: stable.at(-1) ?? null,
        newest_version: pkg.spec.distTags?.latest ?? newestRelease(entries) ?? '0.0.0',
        downloads: 42,
        description: `The ${pkg.name} crate`,
      },
      versions: entries
        .sort(([, a], [, b]) => new Date(b).getTime() - new Date(a).getTime())
        .map(([num, d], i) => ({
          id: 1000 + i,
          crate: pkg.name,
          num,
          created_at: iso(d),
          updated_at: iso(d),
          yanked: yanked.has(num),
          dl_path: `/api/v1/crates/${pkg.name}/${num}/download`,
          license: 'MIT OR Apache-2.0',
        })),
      keywords: [],
      categories: [],
    });
  }

  /** `/{module}/@v/list`, `/{module}/@latest`, `/{module}/@v/{version}.info`, case-encoded. */
  private go(path: string): Answer | null {
    const m = /^\/(.+?)\/(@latest|@v\/list|@v\/(.+)\.info)$/.exec(path);
    if (!m) return text(404, 'not found');
    const [, escapedModule, what, escapedVersion] = m;
    if (/[A-Z]/.test(escapedModule!) || /[A-Z]/.test(escapedVersion ?? '')) {
      return text(400, 'bad request: invalid escaped module path');
    }
    const decode = (s: string) =>
      decodeURIComponent(s).replace(/!([a-z])/g, (_, c: string) => c.toUpperCase());
    const module = decode(escapedModule!);
    const forced = this.forced('Go', module);
    if (forced !== undefined) return forced;
    const pkg = this.find('Go', module);
    if (!pkg) {
      return what === '@v/list'
        ? text(404, `not found: module ${module}: no matching versions`)
        : text(410, `not found: module ${module}: 404 Not Found`);
    }
    const entries = Object.entries(pkg.spec.versions);
    const info = (v: string) => json(200, { Version: v, Time: iso(pkg.spec.versions[v]!) });
    const pseudo = (v: string) => /-(?:0\.)?\d{14}-[0-9a-f]{12}$/.test(v);
    if (what === '@v/list') {
      return text(
        200,
        entries
          .map(([v]) => v)
          .filter((v) => !pseudo(v))
          .join('\n') + (entries.length ? '\n' : ''),
      );
    }
    if (what === '@latest') {
      const listed = entries
        .map(([v]) => v)
        .filter((v) => !pseudo(v))
        .sort(compareLoose);
      const latest =
        pkg.spec.distTags?.latest ??
        listed.filter((v) => !v.includes('-')).at(-1) ??
        listed.at(-1) ??
        newestRelease(entries, () => false);
      return latest === undefined ? text(410, 'not found: no matching versions') : info(latest);
    }
    const version = decode(escapedVersion!);
    return pkg.spec.versions[version] === undefined
      ? text(410, `not found: ${module}@${version}: invalid version: unknown revision ${version}`)
      : info(version);
  }

  /** `GET /{lowercase id}/index.json`. */
  private nuget(path: string): Answer | null {
    const m = /^\/([^/]+)\/index\.json$/.exec(path);
    if (!m || m[1] !== m[1]!.toLowerCase()) return text(404, '<Error><Code>BlobNotFound</Code></Error>');
    const id = decodeURIComponent(m[1]!);
    const forced = this.forced('NuGet', id);
    if (forced !== undefined) return forced;
    const pkg = this.find('NuGet', id);
    if (!pkg) return text(404, '<Error><Code>BlobNotFound</Code></Error>');
    const versions = Object.keys(pkg.spec.versions)
      .map((v) => v.toLowerCase().replace(/\+.*$/, ''))
      .sort(compareLoose);
    return json(200, { versions });
  }

  /** `POST /v1/query` `{"package": {"name", "ecosystem"}, "version"?, "page_token"?}`. */
  private osv(req: IncomingMessage, path: string, body: string): Answer | null {
    if (path !== '/v1/query' || req.method !== 'POST') return json(404, { code: 5, message: 'Not Found' });
    let query: { package?: { name?: unknown; ecosystem?: unknown }; version?: unknown; page_token?: unknown };
    try {
      query = JSON.parse(body) as typeof query;
    } catch {
      return json(400, { code: 3, message: 'Invalid query.' });
    }
    const name = query.package?.name;
    const ecosystem = query.package?.ecosystem;
    if (
      typeof name !== 'string' ||
      !(typeof ecosystem === 'string' && ecosystem in PREFIX && ecosystem !== 'OSV')
    ) {
      return json(400, { code: 3, message: 'Invalid query.' });
    }
    const forced = this.forced('OSV', name);
    if (forced !== undefined) return forced;
    const key = `${ecosystem}\0${packageKey(ecosystem as Ecosystem, name)}`;
    const version = typeof query.version === 'string' ? query.version : null;
    const matching = this.advisories.filter(
      (a) => a.name === key && (version === null || a.versions === undefined || a.versions.includes(version)),
    );
    const offset = typeof query.page_token === 'string' ? Number(query.page_token) : 0;
    const page = matching.slice(offset, offset + this.osvPageSize);
    if (page.length === 0) return json(200, {});
    const next = offset + this.osvPageSize < matching.length ? String(offset + this.osvPageSize) : undefined;
    return json(200, {
      vulns: page.map((a) => ({
        id: a.id,
        summary: a.id.startsWith('MAL-')
          ? `Malicious code in ${name} (${ecosystem})`
          : `A vulnerability in ${name}`,
        modified: '2024-06-01T00:00:00Z',
        published: '2024-06-01T00:00:00Z',
        aliases: a.aliases ?? [],
        affected: [
          {
            package: { ecosystem, name },
            ...(a.versions ? { versions: a.versions } : {}),
            ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }] }],
          },
        ],
      })),
      ...(next === undefined ? {} : { next_page_token: next }),
    });
  }
}

function json(status: number, body: unknown): Answer {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

function text(status: number, body: string): Answer {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body };
}

function earliestDate(entries: [string, Date | string][]): Date {
  const times = entries.map(([, d]) => new Date(d).getTime());
  return new Date(times.length ? Math.min(...times) : Date.now());
}

function latestDate(entries: [string, Date | string][]): Date {
  const times = entries.map(([, d]) => new Date(d).getTime());
  return new Date(times.length ? Math.max(...times) : Date.now());
}

/** The most recently published version that is not a prerelease (what `npm publish` tags latest). */
function newestRelease(
  entries: [string, Date | string][],
  isPre: (v: string) => boolean = (v) => v.includes('-'),
): string | undefined {
  const sorted = [...entries].sort(([, a], [, b]) => new Date(a).getTime() - new Date(b).getTime());
  return (sorted.filter(([v]) => !isPre(v)).at(-1) ?? sorted.at(-1))?.[0];
}

/** Numeric parts compared as numbers, a prerelease before its release; enough for the fixtures. */
function compareLoose(a: string, b: string): number {
  const split = (v: string) => {
    const [core = '', pre] = v.replace(/^v/, '').split(/-(.*)/s);
    return { nums: core.split('.').map(Number), pre };
  };
  const x = split(a);
  const y = split(b);
  for (let i = 0; i < Math.max(x.nums.length, y.nums.length); i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return d;
  }
  if (x.pre === undefined) return y.pre === undefined ? 0 : 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : x.pre > y.pre ? 1 : 0;
}
