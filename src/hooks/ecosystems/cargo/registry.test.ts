import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Behavior, FakeRegistries } from '../../../../test/helpers/fake-registries.js';
import { RegistryUnavailable } from '../../types.js';
import { CRATES_USER_AGENT, createCratesRegistry } from './registry.js';

const ago = (ms: number) => new Date(Date.now() - ms);
const signal = () => AbortSignal.timeout(5000);

let fake: FakeRegistries;
beforeAll(async () => {
  fake = await FakeRegistries.start();
  fake.addPackage('crates.io', 'serde', {
    created: '2014-12-05T20:20:39Z',
    versions: {
      '0.9.0': '2017-01-25T00:00:00Z',
      '1.0.0': '2017-04-20T00:00:00Z',
      '1.0.100': '2019-09-01T00:00:00Z',
      '1.0.200': '2024-05-01T00:00:00Z',
      '1.0.201': '2024-05-02T00:00:00Z',
      '1.1.0-alpha.1': '2024-06-01T00:00:00Z',
    },
    yanked: ['1.0.201'],
  });
});
afterAll(async () => {
  await fake.stop();
});
beforeEach(() => {
  fake.requests.length = 0;
});

describe('crates.io client', () => {
  const client = () => createCratesRegistry({ baseUrl: fake.urls.crates });

  it('reads an existing crate with a User-Agent of its own', async () => {
    const facts = await client().lookup('serde', null, signal());
    expect(facts).toEqual({
      exists: true,
      firstPublished: new Date('2014-12-05T20:20:39Z'),
      resolvedVersion: '1.0.200',
      versionPublished: new Date('2024-05-01T00:00:00Z'),
    });
    const [request] = fake.requestsTo('crates.io');
    expect(request?.path).toBe('/crates/api/v1/crates/serde');
    expect(request?.headers['user-agent']).toBe(CRATES_USER_AGENT);
    expect(CRATES_USER_AGENT).toBe('svc-hooks (https://github.com/svc-security/svc)');
  });

  it('resolves full versions exactly and requirements as Cargo does', async () => {
    const resolved = async (v: string) => (await client().lookup('serde', v, signal())).resolvedVersion;
    expect(await resolved('1.0.100')).toBe('1.0.100');
    expect(await resolved('=1.0.0')).toBe('1.0.0');
    expect(await resolved('1.0')).toBe('1.0.200'); // ^1.0, yanked 1.0.201 skipped
    expect(await resolved('1')).toBe('1.0.200');
    expect(await resolved('0.9')).toBe('0.9.0');
    expect(await resolved('~1.0.0')).toBe('1.0.200');
    expect(await resolved('>=0.9, <1')).toBe('0.9.0');
    expect(await resolved('1.0.*')).toBe('1.0.200');
    expect(await resolved('1.0.150')).toBe('1.0.200'); // not published: ^1.0.150
    expect(await resolved('=1.0.150')).toBeNull();
    expect(await resolved('2')).toBeNull();
    expect(await resolved('1.1.0-alpha.1')).toBe('1.1.0-alpha.1');
  });

  it('says a missing crate does not exist', async () => {
    expect(await client().lookup('no-such-crate-xyz', null, signal())).toEqual({
      exists: false,
      firstPublished: null,
      resolvedVersion: null,
      versionPublished: null,
    });
  });

  it('dates a brand-new crate and a fresh version', async () => {
    const created = ago(86_400_000);
    const fresh = ago(3_600_000);
    fake.addPackage('crates.io', 'brand-new-rs', { versions: { '0.1.0': created } });
    fake.addPackage('crates.io', 'fresh-rs', {
      versions: { '1.0.0': '2021-01-01T00:00:00Z', '1.0.1': fresh },
    });
    expect((await client().lookup('brand-new-rs', null, signal())).firstPublished).toEqual(created);
    expect(await client().lookup('fresh-rs', '1.0.1', signal())).toMatchObject({
      firstPublished: new Date('2021-01-01T00:00:00Z'),
      resolvedVersion: '1.0.1',
      versionPublished: fresh,
    });
  });

  it('throws RegistryUnavailable on 500, 429, a body that is not JSON, a redirect', async () => {
    for (const behavior of [500, 429, 'not-json', 'redirect'] as Behavior[]) {
      fake.setBehavior('crates.io', behavior, 'serde');
      await expect(client().lookup('serde', null, signal())).rejects.toBeInstanceOf(RegistryUnavailable);
    }
    fake.setBehavior('crates.io', null, 'serde');
  });

  it('gives up when the signal fires on a hanging registry', async () => {
    fake.setBehavior('crates.io', 'hang');
    // The fake never answers, so only the signal can end the lookup, and 'timed out' says it did; how
    // long that took is the machine's speed, not the client's behaviour (no wall-clock bound here).
    try {
      await expect(client().lookup('serde', null, AbortSignal.timeout(150))).rejects.toThrow(
        new RegistryUnavailable('crates.io', 'timed out'),
      );
    } finally {
      fake.setBehavior('crates.io', null);
    }
  });
});
