import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Behavior, FakeRegistries } from '../../../../test/helpers/fake-registries.js';
import { RegistryUnavailable } from '../../types.js';
import { createGoRegistry, escapeGoPath, moduleCandidates } from './registry.js';

const ago = (ms: number) => new Date(Date.now() - ms);
const signal = () => AbortSignal.timeout(5000);

let fake: FakeRegistries;
beforeAll(async () => {
  fake = await FakeRegistries.start();
  fake.addPackage('Go', 'github.com/BurntSushi/toml', {
    versions: {
      'v0.1.0': '2013-03-01T00:00:00Z',
      'v0.4.1': '2021-06-01T00:00:00Z',
      'v1.3.0': '2023-05-01T00:00:00Z',
      'v1.3.2': '2023-06-01T00:00:00Z',
      'v1.4.0': '2024-06-01T00:00:00Z',
      'v1.5.0-rc.1': '2024-09-01T00:00:00Z',
    },
  });
  fake.addPackage('Go', 'golang.org/x/tools', {
    versions: { 'v0.20.0': '2024-04-01T00:00:00Z', 'v0.21.0': '2024-05-01T00:00:00Z' },
  });
});
afterAll(async () => {
  await fake.stop();
});
beforeEach(() => {
  fake.requests.length = 0;
});

describe('Go module proxy client', () => {
  const client = () => createGoRegistry({ baseUrl: fake.urls.goproxy });

  it('reads an existing module: lowest version date, @latest and its date, case-encoded', async () => {
    const facts = await client().lookup('github.com/BurntSushi/toml', null, signal());
    expect(facts).toEqual({
      exists: true,
      firstPublished: new Date('2013-03-01T00:00:00Z'),
      resolvedVersion: 'v1.4.0',
      versionPublished: new Date('2024-06-01T00:00:00Z'),
    });
    expect(
      fake
        .requestsTo('Go')
        .map((r) => r.path)
        .sort(),
    ).toEqual([
      '/goproxy/github.com/!burnt!sushi/toml/@latest',
      '/goproxy/github.com/!burnt!sushi/toml/@v/list',
      '/goproxy/github.com/!burnt!sushi/toml/@v/v0.1.0.info',
    ]);
    expect(escapeGoPath('github.com/BurntSushi/toml')).toBe('github.com/!burnt!sushi/toml');
  });

  it('resolves full versions, prefixes and comparisons', async () => {
    const resolved = async (v: string) =>
      (await client().lookup('github.com/BurntSushi/toml', v, signal())).resolvedVersion;
    expect(await resolved('v1.3.0')).toBe('v1.3.0');
    expect(await resolved('latest')).toBe('v1.4.0');
    expect(await resolved('v1')).toBe('v1.4.0');
    expect(await resolved('v1.3')).toBe('v1.3.2');
    expect(await resolved('v0')).toBe('v0.4.1');
    expect(await resolved('<v1.3.2')).toBe('v1.3.0');
    expect(await resolved('>=v1.3.1')).toBe('v1.3.2');
    expect(await resolved('v1.5.0-rc.1')).toBe('v1.5.0-rc.1');
    expect(await resolved('v9.0.0')).toBeNull();
    expect(await resolved('no-such-branch')).toBeNull();
    const facts = await client().lookup('github.com/BurntSushi/toml', 'v1.3', signal());
    expect(facts.versionPublished).toEqual(new Date('2023-06-01T00:00:00Z'));
  });

  it('finds the module that holds a package path, as go install does', async () => {
    const facts = await client().lookup('golang.org/x/tools/cmd/stringer', 'latest', signal());
    expect(facts).toMatchObject({ exists: true, resolvedVersion: 'v0.21.0' });
    expect(moduleCandidates('golang.org/x/tools/cmd/stringer')).toEqual([
      'golang.org/x/tools/cmd/stringer',
      'golang.org/x/tools/cmd',
      'golang.org/x/tools',
      'golang.org/x',
    ]);
    expect(moduleCandidates('github.com/a/b/c')).toEqual(['github.com/a/b/c', 'github.com/a/b']);
  });

  it('says a missing module does not exist (404 and 410 alike)', async () => {
    expect(await client().lookup('github.com/nobody/nothing', null, signal())).toEqual({
      exists: false,
      firstPublished: null,
      resolvedVersion: null,
      versionPublished: null,
    });
  });

  it('dates a brand-new module and a fresh version', async () => {
    const created = ago(86_400_000);
    const fresh = ago(3_600_000);
    fake.addPackage('Go', 'example.com/brand/new', { versions: { 'v0.1.0': created } });
    fake.addPackage('Go', 'example.com/fresh', {
      versions: { 'v1.0.0': '2022-01-01T00:00:00Z', 'v1.0.1': fresh },
    });
    expect(await client().lookup('example.com/brand/new', null, signal())).toMatchObject({
      firstPublished: created,
      versionPublished: created,
    });
    expect(await client().lookup('example.com/fresh', 'v1.0.1', signal())).toMatchObject({
      firstPublished: new Date('2022-01-01T00:00:00Z'),
      resolvedVersion: 'v1.0.1',
      versionPublished: fresh,
    });
  });

  it('handles a module with only pseudo-versions: exists, first publication unknown', async () => {
    const pseudo = 'v0.0.0-20240601120000-0123456789ab';
    fake.addPackage('Go', 'example.com/untagged', { versions: { [pseudo]: '2024-06-01T12:00:00Z' } });
    expect(await client().lookup('example.com/untagged', null, signal())).toEqual({
      exists: true,
      firstPublished: null,
      resolvedVersion: pseudo,
      versionPublished: new Date('2024-06-01T12:00:00Z'),
    });
  });

  it('throws RegistryUnavailable on 500, 429, a body that is not JSON, a redirect', async () => {
    for (const behavior of [500, 429, 'not-json', 'redirect'] as Behavior[]) {
      fake.setBehavior('Go', behavior, 'github.com/BurntSushi/toml');
      await expect(client().lookup('github.com/BurntSushi/toml', null, signal())).rejects.toBeInstanceOf(
        RegistryUnavailable,
      );
    }
    fake.setBehavior('Go', null, 'github.com/BurntSushi/toml');
  });

  it('gives up when the signal fires on a hanging proxy', async () => {
    fake.setBehavior('Go', 'hang');
    // The fake never answers, so only the signal can end the lookup, and 'timed out' says it did; how
    // long that took is the machine's speed, not the client's behaviour (no wall-clock bound here).
    try {
      await expect(
        client().lookup('github.com/BurntSushi/toml', null, AbortSignal.timeout(150)),
      ).rejects.toThrow(new RegistryUnavailable('Go module proxy', 'timed out'));
    } finally {
      fake.setBehavior('Go', null);
    }
  });
});
