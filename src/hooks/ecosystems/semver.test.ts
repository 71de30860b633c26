import { describe, expect, it } from 'vitest';
import { compareSemver, maxSatisfying, parseRange, parseSemver, sameVersion, satisfies } from './semver.js';

const versions = [
  '0.0.1',
  '0.0.2',
  '0.1.0',
  '0.1.4',
  '1.0.0',
  '1.2.3',
  '1.2.9',
  '1.9.0',
  '2.0.0-rc.1',
  '2.0.0',
];

/** The highest of `versions` in an npm range. */
const npm = (range: string, among: readonly string[] = versions) =>
  maxSatisfying(among, parseRange(range, 'npm')!);
const cargo = (range: string) => maxSatisfying(versions, parseRange(range, 'cargo')!);

describe('parseSemver / compareSemver', () => {
  it('reads full versions, with or without v, prerelease and build metadata', () => {
    expect(parseSemver('v1.2.3-beta.1+build.5')).toMatchObject({
      major: 1,
      minor: 2,
      patch: 3,
      prerelease: ['beta', 1],
    });
    expect(parseSemver('1.2')).toBeNull();
    expect(parseSemver('latest')).toBeNull();
  });

  it('orders prereleases before their release, numbers before words', () => {
    const sorted = ['1.0.0', '1.0.0-rc.1', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-1', '0.9.9'].sort((a, b) =>
      compareSemver(parseSemver(a)!, parseSemver(b)!),
    );
    expect(sorted).toEqual(['0.9.9', '1.0.0-1', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-rc.1', '1.0.0']);
    expect(sameVersion('1.2.3+build', parseSemver('v1.2.3')!)).toBe(true);
  });
});

describe('npm ranges', () => {
  it('follows caret, tilde, x-range, hyphen and union rules', () => {
    expect(npm('^0.0.1')).toBe('0.0.1');
    expect(npm('^0.1.0')).toBe('0.1.4');
    expect(npm('^1.2.3')).toBe('1.9.0');
    expect(npm('~1.2')).toBe('1.2.9');
    expect(npm('1.2.x')).toBe('1.2.9');
    expect(npm('1')).toBe('1.9.0');
    expect(npm('1.0.0 - 1.2.5')).toBe('1.2.3');
    expect(npm('<1.0.0 || ^1.2.0 <1.5')).toBe('1.2.9');
    expect(npm('>1.2.9 <2')).toBe('1.9.0');
    expect(npm('<=1.2')).toBe('1.2.9');
    expect(npm('>= 1.0.0')).toBe('2.0.0');
  });

  it('keeps prereleases out unless the range names one of the same version', () => {
    expect(npm('>=2.0.0-rc.0 <2.0.0')).toBe('2.0.0-rc.1');
    expect(npm('>1.9.0', ['1.9.0', '2.0.0-rc.1'])).toBeNull();
    expect(satisfies('2.0.0-rc.1', parseRange('>=1.0.0', 'npm')!)).toBe(false);
  });

  it('rejects text that is not a range', () => {
    expect(parseRange('not a range!', 'npm')).toBeNull();
    expect(parseRange('1.2.3, 1.4', 'npm')).toBeNull();
  });
});

describe('cargo requirements', () => {
  it('reads a bare version as a caret, commas as and, wildcards as x-ranges', () => {
    expect(cargo('1.2')).toBe('1.9.0');
    expect(cargo('0.1')).toBe('0.1.4');
    expect(cargo('=1.2.3')).toBe('1.2.3');
    expect(cargo('>=1, <1.5')).toBe('1.2.9');
    expect(cargo('1.2.*')).toBe('1.2.9');
    expect(cargo('~1.2')).toBe('1.2.9');
  });

  it('rejects npm-only syntax', () => {
    expect(parseRange('^1 || ^2', 'cargo')).toBeNull();
    expect(parseRange('~>1.2', 'cargo')).toBeNull();
    expect(parseRange('', 'cargo')).toBeNull();
  });
});
