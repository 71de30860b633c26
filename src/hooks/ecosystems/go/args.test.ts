import { describe, expect, it } from 'vitest';
import { packagesFromArgs, readGoSpec } from './args.js';

describe('readGoSpec', () => {
  it.each([
    ['github.com/x/y', 'github.com/x/y', null],
    ['github.com/x/y@v1.2.3', 'github.com/x/y', 'v1.2.3'],
    ['github.com/x/y@latest', 'github.com/x/y', 'latest'],
    ['github.com/x/y@master', 'github.com/x/y', 'master'],
    ['github.com/x/y@feature/z', 'github.com/x/y', 'feature/z'],
    ['github.com/x/y/...', 'github.com/x/y', null],
    ['gopkg.in/yaml.v3', 'gopkg.in/yaml.v3', null],
    [
      'github.com/x/y/v2@v2.0.0-20240101000000-abcdef123456',
      'github.com/x/y/v2',
      'v2.0.0-20240101000000-abcdef123456',
    ],
  ])('%s is %s %s', (spec, name, version) => {
    expect(readGoSpec(spec)).toEqual({ request: { ecosystem: 'Go', name, version } });
  });

  it.each([
    ['./...', 'local path'],
    ['.', 'local path'],
    ['../lib', 'local path'],
    ['...', 'package pattern'],
    ['all', 'package pattern'],
    ['fmt', 'not a remote module path (standard library, toolchain or local)'],
    ['toolchain@go1.22.1', 'not a remote module path (standard library, toolchain or local)'],
    ['github.com/x/y@none', 'removal (@none), not an install'],
    ['.x.com/y', 'not a package name'],
    ['github.com/x/y@v1 2', 'not a version'],
  ])('%s is skipped: %s', (spec, why) => {
    expect(readGoSpec(spec)).toEqual({ why });
  });
});

describe('packagesFromArgs (go get / go install)', () => {
  it('skips flag values in every form go accepts', () => {
    const args = ['-tags', 'netgo', '--ldflags=-s -w', '-C', 'dir', '-u=patch', '-x', 'example.com/m@v1'];
    expect(packagesFromArgs(args).installs).toEqual([
      { ecosystem: 'Go', name: 'example.com/m', version: 'v1' },
    ]);
  });
});
