import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Behavior, FakeRegistries } from '../../../../test/helpers/fake-registries.js';
import { RegistryUnavailable } from '../../types.js';
import { createNugetRegistry, parseNugetVersion, resolveNugetVersion } from './registry.js';

const signal = () => AbortSignal.timeout(5000);

let fake: FakeRegistries;
beforeAll(async () => {
  fake = await FakeRegistries.start();
  fake.addPackage('NuGet', 'Newtonsoft.Json', {
    versions: {
      '12.0.1': '2018-11-27T00:00:00Z',
      '12.0.3': '2019-11-09T00:00:00Z',
      '13.0.1': '2021-03-22T00:00:00Z',
      '13.0.3': '2023-03-08T00:00:00Z',
      '14.0.1-beta1': '2024-01-01T00:00:00Z',
    },
  });
});
afterAll(async () => {
  await fake.stop();
});
beforeEach(() => {
  fake.requests.length = 0;
});

describe('NuGet flat container client', () => {
  const client = () => createNugetRegistry({ baseUrl: fake.urls.nuget });

  it('reads an existing package by its lowercase id; no dates (the flat container has none)', async () => {
    expect(await client().lookup('Newtonsoft.Json', null, signal())).toEqual({
      exists: true,
      firstPublished: null,
      resolvedVersion: '13.0.3',
      versionPublished: null,
    });
    expect(fake.requestsTo('NuGet').map((r) => r.path)).toEqual(['/nuget/newtonsoft.json/index.json']);
  });

  it('resolves exact, floating and interval versions', async () => {
    const resolved = async (v: string) =>
      (await client().lookup('Newtonsoft.Json', v, signal())).resolvedVersion;
    expect(await resolved('12.0.1')).toBe('12.0.1');
    expect(await resolved('13.0.3.0')).toBe('13.0.3');
    expect(await resolved('14.0.1-BETA1')).toBe('14.0.1-beta1');
    expect(await resolved('12.*')).toBe('12.0.3');
    expect(await resolved('*')).toBe('13.0.3');
    expect(await resolved('*-*')).toBe('14.0.1-beta1');
    expect(await resolved('[12.0.2,13.0)')).toBe('12.0.3');
    expect(await resolved('[13.0.1,)')).toBe('13.0.1');
    expect(await resolved('[12.0.1]')).toBe('12.0.1');
    expect(await resolved('99.0.0')).toBeNull();
    expect(await resolved('not a version')).toBeNull();
  });

  it('says a missing package does not exist', async () => {
    expect(await client().lookup('No.Such.Package', null, signal())).toEqual({
      exists: false,
      firstPublished: null,
      resolvedVersion: null,
      versionPublished: null,
    });
  });

  it('prefers the highest stable version; a prerelease-only package resolves to its highest', () => {
    const versions = ['1.0.0-alpha', '1.0.0-beta.2', '1.0.0-beta.10'].map((v) => parseNugetVersion(v)!);
    expect(resolveNugetVersion(null, versions)).toBe('1.0.0-beta.10');
  });

  it('throws RegistryUnavailable on 500, 429, a body that is not JSON, a redirect', async () => {
    for (const behavior of [500, 429, 'not-json', 'redirect'] as Behavior[]) {
      fake.setBehavior('NuGet', behavior, 'Newtonsoft.Json');
      await expect(client().lookup('Newtonsoft.Json', null, signal())).rejects.toBeInstanceOf(
        RegistryUnavailable,
      );
    }
    fake.setBehavior('NuGet', null, 'Newtonsoft.Json');
  });

  it('gives up when the signal fires on a hanging registry', async () => {
    fake.setBehavior('NuGet', 'hang');
    // The fake never answers, so only the signal can end the lookup, and 'timed out' says it did; how
    // long that took is the machine's speed, not the client's behaviour (no wall-clock bound here).
    try {
      await expect(client().lookup('Newtonsoft.Json', null, AbortSignal.timeout(150))).rejects.toThrow(
        new RegistryUnavailable('NuGet', 'timed out'),
      );
    } finally {
      fake.setBehavior('NuGet', null);
    }
  });
});
