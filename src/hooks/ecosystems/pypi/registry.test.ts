import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Behavior, FakeRegistries } from '../../../../test/helpers/fake-registries.js';
import { RegistryUnavailable } from '../../types.js';
import { createPypiRegistry, exactPypiVersion, normalizePypiName, resolvePypiVersion } from './registry.js';

const ago = (ms: number) => new Date(Date.now() - ms);
const signal = () => AbortSignal.timeout(5000);

let fake: FakeRegistries;
beforeAll(async () => {
  fake = await FakeRegistries.start();
  fake.addPackage('PyPI', 'Requests', {
    versions: {
      '2.0.0': '2013-09-24T10:00:00Z',
      '2.31.0': '2023-05-22T15:00:00Z',
      '2.32.0': '2024-05-20T15:00:00Z',
      '2.33.0rc1': '2024-06-01T15:00:00Z',
    },
  });
});
afterAll(async () => {
  await fake.stop();
});
beforeEach(() => {
  fake.requests.length = 0;
});

describe('PyPI client', () => {
  const client = () => createPypiRegistry({ baseUrl: fake.urls.pypi });

  it('reads an existing project: earliest upload, latest version and its upload', async () => {
    const facts = await client().lookup('requests', null, signal());
    expect(facts).toEqual({
      exists: true,
      firstPublished: new Date('2013-09-24T10:00:00.000Z'),
      resolvedVersion: '2.32.0',
      versionPublished: new Date('2024-05-20T15:00:00.000Z'),
    });
    expect(fake.requestsTo('PyPI').map((r) => r.path)).toEqual(['/pypi/pypi/requests/json']);
  });

  it('resolves an exact pin to its release; other specifiers to the highest release they admit', async () => {
    const lookup = (v: string | null) => client().lookup('requests', v, signal());
    expect(await lookup('==2.31.0')).toMatchObject({
      resolvedVersion: '2.31.0',
      versionPublished: new Date('2023-05-22T15:00:00.000Z'),
    });
    expect((await lookup('===2.0.0')).resolvedVersion).toBe('2.0.0');
    expect((await lookup('==2.0')).resolvedVersion).toBe('2.0.0');
    expect((await lookup('2.31.0')).resolvedVersion).toBe('2.31.0');
    expect((await lookup('>=2,<3')).resolvedVersion).toBe('2.32.0');
    expect((await lookup('==2.*')).resolvedVersion).toBe('2.32.0');
    // A range below the latest: the release pip would install, not the latest (and its date).
    expect(await lookup('<2.32')).toMatchObject({
      resolvedVersion: '2.31.0',
      versionPublished: new Date('2023-05-22T15:00:00.000Z'),
    });
    expect((await lookup('~=2.0.0')).resolvedVersion).toBe('2.0.0');
    expect((await lookup('!=2.32.0,>=2')).resolvedVersion).toBe('2.31.0');
    // A prerelease only when the specifier names one.
    expect((await lookup('>=2.33.0rc1')).resolvedVersion).toBe('2.33.0rc1');
    expect((await lookup('>=3')).resolvedVersion).toBeNull();
    expect(await lookup('==9.9')).toMatchObject({
      exists: true,
      resolvedVersion: null,
      versionPublished: null,
    });
  });

  it('resolves as pip does (PEP 440, PEP 592): yanked releases only by an exact pin, prereleases when named or alone', () => {
    const all = ['1.0', '1.4', '1.4.2', '1.5a1', '1.9', '2.0rc1', '2.0', '2.1.post1', '3.0.dev2'];
    const installable = all.filter((v) => v !== '1.9'); // 1.9 is yanked
    const resolve = (spec: string | null) => resolvePypiVersion(spec, all, installable, '2.1.post1');
    expect(resolve('>=1,<2')).toBe('1.4.2');
    expect(resolve('~=1.4')).toBe('1.4.2');
    expect(resolve('==1.*')).toBe('1.4.2');
    expect(resolve('==1.9')).toBe('1.9');
    expect(resolve('>=2')).toBe('2.1.post1');
    expect(resolve('>=3.0.dev1')).toBe('3.0.dev2');
    expect(resolve('==1.4.2.0')).toBe('1.4.2');
    expect(resolve(null)).toBe('2.1.post1');
    expect(resolve('>=9')).toBeNull();
  });

  it('normalizes names per PEP 503 (the registry would redirect otherwise)', async () => {
    fake.addPackage('PyPI', 'zope.interface', { versions: { '6.0': '2023-03-01T00:00:00Z' } });
    const facts = await client().lookup('Zope__Interface', null, signal());
    expect(facts).toMatchObject({ exists: true, resolvedVersion: '6.0' });
    expect(fake.requestsTo('PyPI').map((r) => r.path)).toEqual(['/pypi/pypi/zope-interface/json']);
    expect(normalizePypiName('Foo.-_Bar')).toBe('foo-bar');
  });

  it('says a missing project does not exist', async () => {
    expect(await client().lookup('no-such-project-xyz', null, signal())).toEqual({
      exists: false,
      firstPublished: null,
      resolvedVersion: null,
      versionPublished: null,
    });
  });

  it('dates a brand-new project and a fresh release', async () => {
    const created = ago(3 * 86_400_000);
    const fresh = ago(2 * 3_600_000);
    fake.addPackage('PyPI', 'brand-new-py', { versions: { '0.1.0': created } });
    fake.addPackage('PyPI', 'fresh-py', { versions: { '1.0': '2020-01-01T00:00:00Z', '1.1': fresh } });
    expect((await client().lookup('brand-new-py', null, signal())).firstPublished).toEqual(created);
    expect(await client().lookup('fresh-py', '==1.1', signal())).toMatchObject({
      firstPublished: new Date('2020-01-01T00:00:00Z'),
      resolvedVersion: '1.1',
      versionPublished: fresh,
    });
  });

  it('throws RegistryUnavailable on 500, 429, a body that is not JSON, a redirect', async () => {
    for (const behavior of [500, 429, 'not-json', 'redirect'] as Behavior[]) {
      fake.setBehavior('PyPI', behavior, 'requests');
      await expect(client().lookup('requests', null, signal())).rejects.toBeInstanceOf(RegistryUnavailable);
    }
    fake.setBehavior('PyPI', null, 'requests');
  });

  it('gives up when the signal fires on a hanging registry', async () => {
    fake.setBehavior('PyPI', 'hang');
    // The fake never answers, so only the signal can end the lookup, and 'timed out' says it did; how
    // long that took is the machine's speed, not the client's behaviour (no wall-clock bound here).
    try {
      await expect(client().lookup('requests', null, AbortSignal.timeout(150))).rejects.toThrow(
        new RegistryUnavailable('PyPI', 'timed out'),
      );
    } finally {
      fake.setBehavior('PyPI', null);
    }
  });

  it('knows which specifiers pin one version', () => {
    expect(exactPypiVersion('==1.0')).toBe('1.0');
    expect(exactPypiVersion('=== 1.0')).toBe('1.0');
    expect(exactPypiVersion('1.0.post1')).toBe('1.0.post1');
    expect(exactPypiVersion('==1.*')).toBeNull();
    expect(exactPypiVersion('>=1.0')).toBeNull();
    expect(exactPypiVersion('==1.0,!=1.0.1')).toBeNull();
    expect(exactPypiVersion(null)).toBeNull();
  });
});
