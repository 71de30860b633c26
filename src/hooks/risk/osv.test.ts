import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Behavior, FakeRegistries } from '../../../test/helpers/fake-registries.js';
import { RegistryUnavailable } from '../types.js';
import { createOsvLookup, exactOsvVersion } from './osv.js';

const signal = () => AbortSignal.timeout(5000);

let fake: FakeRegistries;
beforeAll(async () => {
  fake = await FakeRegistries.start();
  fake
    .addMalware('npm', 'evil-pkg')
    .addAdvisory('npm', 'lodash', 'GHSA-jf85-cpcp-j695')
    .addAdvisory('npm', 'lodash', 'CVE-2019-10744')
    .addMalware('npm', 'once-hijacked', 'MAL-2021-1', { versions: ['1.0.1'] })
    .addAdvisory('npm', 'aliased', 'GHSA-aaaa-bbbb-cccc', { aliases: ['MAL-2022-7'] })
    .addMalware('PyPI', 'Evil_Py', 'MAL-2024-99')
    .addMalware('Go', 'github.com/evil/mod', 'MAL-2024-5', { versions: ['1.2.3'] });
});
afterAll(async () => {
  await fake.stop();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.osvPageSize = 100;
});

const sent = () => fake.requestsTo('OSV').map((r) => JSON.parse(r.body) as Record<string, unknown>);

describe('OSV malware lookup', () => {
  const osv = () => createOsvLookup({ baseUrl: fake.urls.osv });

  it('returns the MAL- advisories of a malicious package', async () => {
    expect(await osv().maliciousAdvisories('npm', 'evil-pkg', null, signal())).toEqual(['MAL-2024-1234']);
    const [request] = fake.requestsTo('OSV');
    expect(request).toMatchObject({ method: 'POST', path: '/osv/v1/query' });
    expect(sent()).toEqual([{ package: { name: 'evil-pkg', ecosystem: 'npm' } }]);
  });

  it('ignores advisories that are not MAL-, and answers nothing for a clean package', async () => {
    expect(await osv().maliciousAdvisories('npm', 'lodash', '4.17.0', signal())).toEqual([]);
    expect(await osv().maliciousAdvisories('npm', 'left-pad', null, signal())).toEqual([]);
  });

  it('counts a MAL- alias of another advisory', async () => {
    expect(await osv().maliciousAdvisories('npm', 'aliased', null, signal())).toEqual(['MAL-2022-7']);
  });

  it('sends the version only when the request pins one exactly', async () => {
    const lookup = (v: string | null) => osv().maliciousAdvisories('npm', 'once-hijacked', v, signal());
    expect(await lookup('1.0.0')).toEqual([]);
    expect(await lookup('1.0.1')).toEqual(['MAL-2021-1']);
    expect(await lookup('^1.0.0')).toEqual(['MAL-2021-1']);
    expect(await lookup('latest')).toEqual(['MAL-2021-1']);
    expect(sent().map((q) => q.version)).toEqual(['1.0.0', '1.0.1', undefined, undefined]);
  });

  it('queries PyPI by normalized name and Go by version without its v', async () => {
    expect(await osv().maliciousAdvisories('PyPI', 'evil.py', '==1.0', signal())).toEqual(['MAL-2024-99']);
    expect(await osv().maliciousAdvisories('Go', 'github.com/evil/mod', 'v1.2.3', signal())).toEqual([
      'MAL-2024-5',
    ]);
    expect(sent()).toEqual([
      { package: { name: 'evil-py', ecosystem: 'PyPI' }, version: '1.0' },
      { package: { name: 'github.com/evil/mod', ecosystem: 'Go' }, version: '1.2.3' },
    ]);
  });

  it('follows next_page_token, within a bound', async () => {
    fake.osvPageSize = 1;
    const many = 'paged-pkg';
    for (const id of ['GHSA-1', 'GHSA-2', 'MAL-2024-3', 'GHSA-4', 'MAL-2024-5', 'MAL-2024-6', 'MAL-2024-7']) {
      fake.addAdvisory('npm', many, id);
    }
    expect(await osv().maliciousAdvisories('npm', many, null, signal())).toEqual([
      'MAL-2024-3',
      'MAL-2024-5',
    ]);
    expect(sent().map((q) => q.page_token)).toEqual([undefined, '1', '2', '3', '4']);
    const all = createOsvLookup({ baseUrl: fake.urls.osv, maxPages: 10 });
    expect(await all.maliciousAdvisories('npm', many, null, signal())).toHaveLength(4);
  });

  it('throws RegistryUnavailable on 500, 429, a body that is not JSON, a redirect', async () => {
    for (const behavior of [500, 429, 'not-json', 'redirect'] as Behavior[]) {
      fake.setBehavior('OSV', behavior, 'evil-pkg');
      await expect(osv().maliciousAdvisories('npm', 'evil-pkg', null, signal())).rejects.toBeInstanceOf(
        RegistryUnavailable,
      );
    }
    fake.setBehavior('OSV', null, 'evil-pkg');
  });

  it('gives up when the signal fires on a hanging OSV', async () => {
    fake.setBehavior('OSV', 'hang');
    // The fake never answers, so only the signal can end the lookup, and 'timed out' says it did; how
    // long that took is the machine's speed, not the client's behaviour (no wall-clock bound here).
    try {
      await expect(
        osv().maliciousAdvisories('npm', 'evil-pkg', null, AbortSignal.timeout(150)),
      ).rejects.toThrow(new RegistryUnavailable('OSV', 'timed out'));
    } finally {
      fake.setBehavior('OSV', null);
    }
  });
});

describe('OSV answers of the wrong shape, and paging, through an injected fetch', () => {
  /** A fetch that answers each call with the next body, and records what was sent. */
  function answering(...bodies: unknown[]) {
    const sent: { headers: Record<string, string>; body: Record<string, unknown> }[] = [];
    const fetch = (async (_url: string | URL | Request, init?: RequestInit) => {
      sent.push({
        headers: init?.headers as Record<string, string>,
        body: JSON.parse(String(init?.body)) as Record<string, unknown>,
      });
      return new Response(JSON.stringify(bodies[sent.length - 1] ?? {}), {
        headers: { 'content-type': 'application/json' },
      });
    }) as typeof globalThis.fetch;
    return { lookup: createOsvLookup({ baseUrl: 'http://osv.invalid', fetch }), sent };
  }

  it.each([
    ['an array', []],
    ['a string', 'MAL-1'],
    ['vulns that are not a list', { vulns: { id: 'MAL-1' } }],
    ['a vuln that is not an object', { vulns: ['MAL-1'] }],
    ['a vuln without an id', { vulns: [{ aliases: ['MAL-1'] }] }],
    ['a vuln whose id is not a string', { vulns: [{ id: 7 }] }],
  ])('%s: RegistryUnavailable, not an empty answer', async (_, body) => {
    const { lookup } = answering(body);
    await expect(lookup.maliciousAdvisories('npm', 'x', null, signal())).rejects.toBeInstanceOf(
      RegistryUnavailable,
    );
  });

  it('skips aliases that are not strings, and a list of aliases that is not a list', async () => {
    const { lookup } = answering({
      vulns: [
        { id: 'MAL-1', aliases: [7, null, 'MAL-3', 'GHSA-x'] },
        { id: 'MAL-2', aliases: 'MAL-9' },
      ],
    });
    expect(await lookup.maliciousAdvisories('npm', 'x', null, signal())).toEqual(['MAL-1', 'MAL-3', 'MAL-2']);
  });

  it('asks for JSON, sends JSON, and stops at an empty page token', async () => {
    const { lookup, sent } = answering(
      { vulns: [{ id: 'MAL-1' }], next_page_token: 'p2' },
      { next_page_token: '' },
    );
    expect(await lookup.maliciousAdvisories('npm', 'x', '1.0.0', signal())).toEqual(['MAL-1']);
    expect(sent.map((s) => s.body)).toEqual([
      { package: { name: 'x', ecosystem: 'npm' }, version: '1.0.0' },
      { package: { name: 'x', ecosystem: 'npm' }, version: '1.0.0', page_token: 'p2' },
    ]);
    expect(sent[0]!.headers).toMatchObject({
      accept: 'application/json',
      'content-type': 'application/json',
    });
  });
});

describe('exactOsvVersion', () => {
  it('keeps only versions that pin one release', () => {
    expect(exactOsvVersion('npm', '1.2.3')).toBe('1.2.3');
    expect(exactOsvVersion('npm', 'v1.2.3')).toBe('1.2.3');
    expect(exactOsvVersion('npm', '^1.2.3')).toBeNull();
    expect(exactOsvVersion('npm', 'latest')).toBeNull();
    expect(exactOsvVersion('PyPI', '==2.0')).toBe('2.0');
    expect(exactOsvVersion('PyPI', '>=2.0')).toBeNull();
    expect(exactOsvVersion('crates.io', '=1.0.5')).toBe('1.0.5');
    expect(exactOsvVersion('crates.io', '1.0.5')).toBe('1.0.5');
    expect(exactOsvVersion('crates.io', '1.0')).toBeNull();
    expect(exactOsvVersion('Go', 'v1.2.3')).toBe('1.2.3');
    expect(exactOsvVersion('Go', 'v1.2')).toBeNull();
    expect(exactOsvVersion('Go', 'latest')).toBeNull();
    expect(exactOsvVersion('NuGet', '13.0.3')).toBe('13.0.3');
    expect(exactOsvVersion('NuGet', '[1.0,2.0)')).toBeNull();
    expect(exactOsvVersion('NuGet', '1.*')).toBeNull();
    expect(exactOsvVersion('npm', null)).toBeNull();
    // Surrounding white space is not part of the version; nothing but white space is none.
    expect(exactOsvVersion('npm', ' 1.2.3 ')).toBe('1.2.3');
    expect(exactOsvVersion('npm', '   ')).toBeNull();
  });
});
