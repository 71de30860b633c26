import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Behavior, FakeRegistries } from '../../../../test/helpers/fake-registries.js';
import { RegistryUnavailable } from '../../types.js';
import { createRegistries } from '../index.js';
import { createNpmRegistry, encodeNpmName, resolveNpmVersion } from './registry.js';

const DAY = 86_400_000;
const ago = (ms: number) => new Date(Date.now() - ms);
const signal = () => AbortSignal.timeout(5000);

let fake: FakeRegistries;
beforeAll(async () => {
  fake = await FakeRegistries.start();
});
afterAll(async () => {
  await fake.stop();
});
beforeEach(() => {
  fake.requests.length = 0;
});

describe('npm registry client', () => {
  const client = () => createNpmRegistry({ baseUrl: fake.urls.npm });

  it('reads an existing package: creation date, latest version and its date', async () => {
    fake.addPackage('npm', 'left-pad', {
      versions: { '1.0.0': '2014-03-01T10:00:00.000Z', '1.3.0': '2018-04-09T01:00:00.000Z' },
      created: '2014-03-01T09:59:00.000Z',
    });
    const facts = await client().lookup('left-pad', null, signal());
    expect(facts).toEqual({
      exists: true,
      firstPublished: new Date('2014-03-01T09:59:00.000Z'),
      resolvedVersion: '1.3.0',
      versionPublished: new Date('2018-04-09T01:00:00.000Z'),
    });
    const [request] = fake.requestsTo('npm');
    expect(request?.path).toBe('/npm/left-pad');
    expect(request?.headers.accept).toBe('application/json');
  });

  it('resolves exact versions, dist-tags and ranges', async () => {
    fake.addPackage('npm', 'ranged', {
      versions: {
        '1.0.0': '2020-01-01T00:00:00Z',
        '1.2.0': '2020-02-01T00:00:00Z',
        '1.2.5': '2020-03-01T00:00:00Z',
        '1.3.0': '2020-04-01T00:00:00Z',
        '2.0.0': '2021-01-01T00:00:00Z',
        '3.0.0-beta.1': '2022-01-01T00:00:00Z',
      },
      distTags: { latest: '2.0.0', next: '3.0.0-beta.1' },
    });
    const resolved = async (v: string | null) =>
      (await client().lookup('ranged', v, signal())).resolvedVersion;
    expect(await resolved('1.2.0')).toBe('1.2.0');
    expect(await resolved('v1.2.0')).toBe('1.2.0');
    expect(await resolved('next')).toBe('3.0.0-beta.1');
    expect(await resolved('latest')).toBe('2.0.0');
    expect(await resolved('^1.2')).toBe('1.3.0');
    expect(await resolved('~1.2.0')).toBe('1.2.5');
    expect(await resolved('1.x')).toBe('1.3.0');
    expect(await resolved('>=1 <2')).toBe('1.3.0');
    expect(await resolved('*')).toBe('2.0.0');
    expect(await resolved('9.9.9')).toBeNull();
    expect(await resolved('^9')).toBeNull();
    expect(await resolved('no-such-tag')).toBeNull();
    const facts = await client().lookup('ranged', '~1.2.0', signal());
    expect(facts.versionPublished).toEqual(new Date('2020-03-01T00:00:00Z'));
  });

  it('says a missing package does not exist', async () => {
    expect(await client().lookup('no-such-package-xyz', null, signal())).toEqual({
      exists: false,
      firstPublished: null,
      resolvedVersion: null,
      versionPublished: null,
    });
  });

  it('says an unpublished package (no versions left) does not exist', async () => {
    fake.addPackage('npm', 'gone-pkg', { versions: {}, created: '2023-01-01T00:00:00Z' });
    expect((await client().lookup('gone-pkg', null, signal())).exists).toBe(false);
  });

  it('dates a brand-new package and a fresh version', async () => {
    const created = ago(2 * DAY);
    const fresh = ago(3_600_000);
    fake.addPackage('npm', 'brand-new', { versions: { '0.0.1': created } });
    fake.addPackage('npm', 'old-but-fresh', {
      versions: { '1.0.0': '2019-01-01T00:00:00Z', '1.0.1': fresh },
    });
    const brandNew = await client().lookup('brand-new', null, signal());
    expect(brandNew.firstPublished).toEqual(created);
    const oldButFresh = await client().lookup('old-but-fresh', '1.0.1', signal());
    expect(oldButFresh.firstPublished).toEqual(new Date('2019-01-01T00:00:00Z'));
    expect(oldButFresh).toMatchObject({ resolvedVersion: '1.0.1', versionPublished: fresh });
  });

  it('encodes a scoped name as @scope%2Fname and keeps the base path', async () => {
    fake.addPackage('npm', '@acme/widgets', { versions: { '2.1.0': '2024-01-01T00:00:00Z' } });
    const facts = await client().lookup('@acme/widgets', '2.1.0', signal());
    expect(facts).toMatchObject({ exists: true, resolvedVersion: '2.1.0' });
    expect(fake.requestsTo('npm').map((r) => r.path)).toEqual(['/npm/@acme%2Fwidgets']);
    expect(encodeNpmName('@a/b')).toBe('@a%2Fb');
    expect(encodeNpmName('../x')).toBe('..%2Fx');
  });

  describe('when the registry cannot answer', () => {
    const failures: [Behavior, RegExp][] = [
      [500, /server error \(HTTP 500\)/],
      [429, /rate limited/],
      ['not-json', /not JSON/],
      ['redirect', /redirect/],
    ];
    for (const [behavior, reason] of failures) {
      it(`throws RegistryUnavailable on ${behavior}`, async () => {
        fake.setBehavior('npm', behavior, 'flaky');
        try {
          const error = await client()
            .lookup('flaky', null, signal())
            .catch((e: unknown) => e);
          expect(error).toBeInstanceOf(RegistryUnavailable);
          expect((error as RegistryUnavailable).reason).toMatch(reason);
          expect((error as Error).message).not.toMatch(/maintenance|internal server error/);
        } finally {
          fake.setBehavior('npm', null, 'flaky');
        }
      });
    }

    it('gives up when the signal fires on a hanging registry', async () => {
      fake.setBehavior('npm', 'hang');
      // The fake never answers, so only the signal can end the lookup, and 'timed out' says it did; how
      // long that took is the machine's speed, not the client's behaviour (no wall-clock bound here).
      try {
        const error = await client()
          .lookup('anything', null, AbortSignal.timeout(150))
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(RegistryUnavailable);
        expect((error as RegistryUnavailable).reason).toBe('timed out');
      } finally {
        fake.setBehavior('npm', null);
      }
    });

    it('refuses a body larger than the bound', async () => {
      fake.addPackage('npm', 'big', {
        versions: Object.fromEntries(
          Array.from({ length: 200 }, (_, i) => [`1.0.${i}`, '2020-01-01T00:00:00Z']),
        ),
      });
      const small = createNpmRegistry({ baseUrl: fake.urls.npm, maxBytes: 4096 });
      await expect(small.lookup('big', null, signal())).rejects.toThrow(/larger than 4 KB/);
    });

    it('throws on a document of the wrong shape', async () => {
      const odd = createNpmRegistry({
        baseUrl: 'http://registry.invalid',
        fetch: async () => new Response(JSON.stringify({ versions: ['1.0.0'] }), { status: 200 }),
      });
      await expect(odd.lookup('x', null, signal())).rejects.toThrow(/unexpected response shape/);
    });

    it('throws on a network error', async () => {
      const closed = createNpmRegistry({ baseUrl: 'http://127.0.0.1:9' });
      await expect(closed.lookup('x', null, signal())).rejects.toThrow(/network error/);
    });
  });
});

describe('npm version resolution', () => {
  const versions = ['1.0.0', '1.2.3', '1.9.0', '2.0.0-rc.1', '2.0.0'];

  it('prefers the latest tag when it satisfies the range, as npm does', () => {
    expect(resolveNpmVersion('>=1', versions, new Map([['latest', '1.9.0']]))).toBe('1.9.0');
  });

  it('else takes the highest version in the range, and reads exact versions and dist-tags', () => {
    const tags = new Map([
      ['latest', '1.9.0'],
      ['next', '2.0.0-rc.1'],
    ]);
    expect(resolveNpmVersion('^2.0.0-rc.0', versions, tags)).toBe('2.0.0');
    expect(resolveNpmVersion('v1.2.3', versions, tags)).toBe('1.2.3');
    expect(resolveNpmVersion('next', versions, tags)).toBe('2.0.0-rc.1');
    expect(resolveNpmVersion('not a range!', versions, tags)).toBeNull();
  });
});

describe('createRegistries', () => {
  it('wires one client per ecosystem to its configured URL', async () => {
    fake.addPackage('npm', 'w-npm', { versions: { '1.0.0': '2020-01-01T00:00:00Z' } });
    fake.addPackage('PyPI', 'w-pypi', { versions: { '1.0': '2020-01-01T00:00:00Z' } });
    fake.addPackage('crates.io', 'w-crate', { versions: { '1.0.0': '2020-01-01T00:00:00Z' } });
    fake.addPackage('Go', 'example.com/w-go', { versions: { 'v1.0.0': '2020-01-01T00:00:00Z' } });
    fake.addPackage('NuGet', 'W.NuGet', { versions: { '1.0.0': '2020-01-01T00:00:00Z' } });
    const registries = createRegistries(fake.urls);
    const names = {
      npm: 'w-npm',
      PyPI: 'w-pypi',
      'crates.io': 'w-crate',
      Go: 'example.com/w-go',
      NuGet: 'W.NuGet',
    };
    for (const [ecosystem, name] of Object.entries(names) as [keyof typeof names, string][]) {
      const client = registries[ecosystem];
      expect(client.ecosystem).toBe(ecosystem);
      expect(await client.lookup(name, null, signal()), ecosystem).toMatchObject({ exists: true });
    }
  });
});
