import { describe, expect, it } from 'vitest';
import {
  type Answer,
  ago,
  DAY,
  facts,
  HOUR,
  MemoryCache,
  memoryRiskServices as services,
} from '../../../test/helpers/risk-services.js';
import { type PackageRequest, RegistryUnavailable } from '../types.js';
import { assessPackages, FRESH_VERSION_HOURS, NEW_PACKAGE_DAYS } from './assess.js';

/**
 * The risk rules on their own, fed registry answers directly with a fixed clock, so each row says
 * exactly which facts make a package risky.
 */
const npm = (name: string, version: string | null = null, extra: Partial<PackageRequest> = {}) => ({
  ecosystem: 'npm' as const,
  name,
  version,
  ...extra,
});

async function verdictOf(request: PackageRequest, answer: Answer, malware: string[] = []) {
  const { risk } = services({ [request.name]: answer }, { [request.name]: malware });
  const [verdict] = await assessPackages([request], risk, new AbortController().signal);
  return verdict!;
}

describe('the risk rules, row by row', () => {
  it.each<[string, Answer, string[], string[]]>([
    ['an old package, an old version', facts(), [], []],
    [
      'first published 6 days 23 hours ago',
      facts({ firstPublished: ago(NEW_PACKAGE_DAYS * DAY - HOUR) }),
      [],
      ['`pkg` was first published 6 days ago (under 7 days)'],
    ],
    ['first published exactly 7 days ago', facts({ firstPublished: ago(NEW_PACKAGE_DAYS * DAY) }), [], []],
    [
      'first published 30 minutes ago',
      facts({ firstPublished: ago(HOUR / 2) }),
      [],
      ['`pkg` was first published less than an hour ago (under 7 days)'],
    ],
    [
      'first published 1 hour ago',
      facts({ firstPublished: ago(HOUR) }),
      [],
      ['`pkg` was first published 1 hour ago (under 7 days)'],
    ],
    [
      'first published 47 hours ago',
      facts({ firstPublished: ago(47 * HOUR) }),
      [],
      ['`pkg` was first published 47 hours ago (under 7 days)'],
    ],
    [
      'first published 48 hours ago',
      facts({ firstPublished: ago(48 * HOUR) }),
      [],
      ['`pkg` was first published 2 days ago (under 7 days)'],
    ],
    [
      'its version published 47 hours 59 minutes ago',
      facts({ versionPublished: ago(FRESH_VERSION_HOURS * HOUR - 60_000) }),
      [],
      ['`pkg@1.0.0` was published 47 hours ago (under 48 hours)'],
    ],
    [
      'its version published exactly 48 hours ago',
      facts({ versionPublished: ago(FRESH_VERSION_HOURS * HOUR) }),
      [],
      [],
    ],
    [
      'a fresh version the registry cannot name',
      facts({ versionPublished: ago(HOUR), resolvedVersion: null }),
      [],
      [],
    ],
    ['dates the registry does not give', facts({ firstPublished: null, versionPublished: null }), [], []],
    [
      'a name the registry does not have',
      facts({ exists: false, firstPublished: null, resolvedVersion: null, versionPublished: null }),
      [],
      ['`pkg` does not exist on npm: a mistyped or made-up name'],
    ],
    [
      'known malware: at most three advisories named',
      facts(),
      ['MAL-1', 'MAL-2', 'MAL-3', 'MAL-4'],
      ['`pkg` is known malware (MAL-1, MAL-2, MAL-3)'],
    ],
    [
      'new, fresh and malware at once: every reason',
      facts({ firstPublished: ago(2 * HOUR), versionPublished: ago(2 * HOUR) }),
      ['MAL-9'],
      [
        '`pkg` is known malware (MAL-9)',
        '`pkg` was first published 2 hours ago (under 7 days)',
        '`pkg@1.0.0` was published 2 hours ago (under 48 hours)',
      ],
    ],
  ])('%s', async (_, answer, malware, reasons) => {
    const verdict = await verdictOf(npm('pkg'), answer, malware);
    expect(verdict.reasons).toEqual(reasons);
    expect(verdict.risky).toBe(reasons.length > 0);
    expect(verdict.unjudged).toBeNull();
  });

  it('a typosquat of a popular name is risky even when the registry has it', async () => {
    const verdict = await verdictOf(npm('lodahs'), facts());
    expect(verdict.risky).toBe(true);
    expect(verdict.reasons).toEqual([expect.stringMatching(/^`lodahs` looks like `lodash`/)]);
  });

  it('a name missing from the public registry proves nothing when the command names another registry', async () => {
    const verdict = await verdictOf(
      npm('internal-tool', null, { customRegistry: true }),
      facts({ exists: false, firstPublished: null, resolvedVersion: null }),
    );
    expect(verdict).toMatchObject({
      risky: false,
      reasons: [],
      unjudged: 'it comes from a registry the command names, not npm',
    });
  });
});

describe('what cannot be judged is said, never counted as risky', () => {
  it.each<[string, Answer, string[] | RegistryUnavailable, string]>([
    [
      'registry down',
      new RegistryUnavailable('npm', 'server error (HTTP 500)'),
      [],
      'npm did not answer (server error (HTTP 500))',
    ],
    [
      'OSV down',
      facts(),
      new RegistryUnavailable('OSV', 'timed out'),
      'the malware database did not answer (timed out)',
    ],
    [
      'both down',
      new RegistryUnavailable('npm', 'timed out'),
      new RegistryUnavailable('OSV', 'the response is not JSON'),
      'npm did not answer (timed out); the malware database did not answer (the response is not JSON)',
    ],
  ])('%s', async (_, answer, malware, unjudged) => {
    const { risk } = services({ pkg: answer }, { pkg: malware });
    const [verdict] = await assessPackages([npm('pkg')], risk, new AbortController().signal);
    expect(verdict).toMatchObject({ risky: false, reasons: [], unjudged });
  });

  it('an error that is not a registry failure is named only as an error', async () => {
    const { risk } = services({});
    risk.registries.npm = {
      ecosystem: 'npm',
      lookup: () => Promise.reject(new Error('secret-bearing text')),
    };
    const [verdict] = await assessPackages([npm('pkg')], risk, new AbortController().signal);
    expect(verdict!.unjudged).toBe('npm did not answer (error)');
  });

  it('a registry still waiting when the signal fires: out of time', async () => {
    const { risk } = services({ slow: 'hang', quick: facts() });
    const controller = new AbortController();
    const pending = assessPackages([npm('slow'), npm('quick')], risk, controller.signal);
    controller.abort();
    const [slow, quick] = await pending;
    expect(slow!.unjudged).toBe('npm did not answer (out of time)');
    expect(quick!.unjudged).toBeNull();
  });
});

describe('answers are cached, with a shorter life for a missing name', () => {
  it('asks each registry and OSV once per name and version, and revives dates from the cache', async () => {
    const { risk, asked, cache } = services(
      { fresh: facts({ firstPublished: ago(2 * DAY) }) },
      { fresh: [] },
    );
    const signal = new AbortController().signal;
    const [first] = await assessPackages([npm('fresh', '^1')], risk, signal);
    const [second] = await assessPackages([npm('fresh', '^1')], risk, signal);
    expect(asked).toEqual(['npm fresh ^1', 'OSV npm fresh 1.0.0']);
    expect(second).toEqual(first);
    expect(second!.reasons).toEqual(['`fresh` was first published 2 days ago (under 7 days)']);
    expect([...cache.entries].map(([key, { ttl }]) => [key, ttl])).toEqual([
      ['facts:npm:fresh:^1', 3600],
      ['osv:npm:fresh:1.0.0', 3600],
    ]);
  });

  it('keeps a missing name for ten minutes, and asks OSV without a version when none resolved', async () => {
    const { risk, asked, cache } = services({});
    await assessPackages([npm('ghost')], risk, new AbortController().signal);
    expect(asked).toEqual(['npm ghost null', 'OSV npm ghost null']);
    expect(cache.entries.get('facts:npm:ghost:')?.ttl).toBe(600);
    expect(cache.entries.get('osv:npm:ghost:')?.ttl).toBe(3600);
  });

  it('revives missing dates as null, not as the epoch', async () => {
    const cache = new MemoryCache();
    const { risk } = services(
      { undated: facts({ firstPublished: null, versionPublished: null }) },
      {},
      cache,
    );
    await assessPackages([npm('undated')], risk, new AbortController().signal);
    const [again] = await assessPackages([npm('undated')], risk, new AbortController().signal);
    expect(again).toMatchObject({ risky: false, reasons: [] });
  });
});
