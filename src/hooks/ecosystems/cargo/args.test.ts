import { describe, expect, it } from 'vitest';
import { packagesFromArgs, readCargoSpec } from './args.js';

describe('readCargoSpec', () => {
  it.each([
    ['serde', 'serde', null],
    ['serde@1.0', 'serde', '1.0'],
    ['serde@=1.0.3', 'serde', '=1.0.3'],
    ['serde@>=1, <2', 'serde', '>=1, <2'],
    ['tokio-util@0.7.10', 'tokio-util', '0.7.10'],
  ])('%s is %s %s', (spec, name, version) => {
    expect(readCargoSpec(spec)).toEqual({ request: { ecosystem: 'crates.io', name, version } });
  });

  it.each([
    ['../x', 'local path'],
    ['x.crate', 'local archive file'],
    ['https://h/x', 'URL'],
    ['a/b', 'local path'],
    ['se rde', 'not a package name'],
    ['serde@1#', 'not a version'],
  ])('%s is skipped: %s', (spec, why) => {
    expect(readCargoSpec(spec)).toEqual({ why });
  });
});

describe('packagesFromArgs (cargo add)', () => {
  it('skips option values, clustered or not', () => {
    expect(
      packagesFromArgs(['-Fderive', 'serde', '--features', 'a,b', '-p', 'member', 'anyhow']).installs,
    ).toEqual([
      { ecosystem: 'crates.io', name: 'serde', version: null },
      { ecosystem: 'crates.io', name: 'anyhow', version: null },
    ]);
  });

  it('skips crates from --git and --path sources', () => {
    expect(packagesFromArgs(['x', '--git', 'https://h/x', '--branch', 'main'])).toEqual({
      installs: [],
      skipped: [
        { spec: 'https://h/x', why: 'source-control source' },
        { spec: 'x', why: 'from a source-control source (--git)' },
      ],
    });
  });

  it('applies cargo-edit --vers to crates without a version', () => {
    expect(packagesFromArgs(['serde', '--vers=1.0.190']).installs).toEqual([
      { ecosystem: 'crates.io', name: 'serde', version: '1.0.190' },
    ]);
  });
});
