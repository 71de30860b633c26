import { describe, expect, it } from 'vitest';
import { firstPositional, nonRegistryReason, scanArgs } from './options.js';

describe('scanArgs', () => {
  it('reads long options with = or a following value, and -- ends options', () => {
    expect(scanArgs(['--a=1', '--b', '2', '--c', 'x', '--', '--d'], { values: new Set(['--b']) })).toEqual([
      { kind: 'option', name: '--a', value: '1' },
      { kind: 'option', name: '--b', value: '2' },
      { kind: 'option', name: '--c', value: null },
      { kind: 'positional', value: 'x' },
      { kind: 'positional', value: '--d' },
    ]);
  });

  it('reads getopt clusters when asked', () => {
    const spec = { values: new Set(['-r']), clusters: true };
    expect(scanArgs(['-Ur', 'f', '-rg', '-qv', '-'], spec)).toEqual([
      { kind: 'option', name: '-U', value: null },
      { kind: 'option', name: '-r', value: 'f' },
      { kind: 'option', name: '-r', value: 'g' },
      { kind: 'option', name: '-q', value: null },
      { kind: 'option', name: '-v', value: null },
      { kind: 'positional', value: '-' },
    ]);
  });

  it('reads single-dash words whole without clusters, with : as a separator when asked', () => {
    expect(
      scanArgs(['-ws', '-v:1.0', '-tags', 'x'], { values: new Set(['-tags']), separators: '=:' }),
    ).toEqual([
      { kind: 'option', name: '-ws', value: null },
      { kind: 'option', name: '-v', value: '1.0' },
      { kind: 'option', name: '-tags', value: 'x' },
    ]);
  });

  it('gives null to a value option at the end', () => {
    expect(scanArgs(['--b'], { values: new Set(['--b']) })).toEqual([
      { kind: 'option', name: '--b', value: null },
    ]);
  });
});

describe('firstPositional', () => {
  const spec = { values: new Set(['-u', '--user']), clusters: true };
  it.each([
    [['a'], 0],
    [['-E', 'a'], 1],
    [['-u', 'x', 'a'], 2],
    [['-Eu', 'x', 'a'], 2],
    [['-ux', 'a'], 1],
    [['--user', 'x', 'a'], 2],
    [['--user=x', 'a'], 1],
    [['--', '-a'], 1],
    [['-E'], -1],
    [['--'], -1],
  ])('%j → %i', (args, index) => {
    expect(firstPositional(args, spec)).toBe(index);
  });
});

describe('nonRegistryReason', () => {
  const archives = /\.tgz$/;
  it.each([
    ['lodash', null],
    ['@scope/x', null],
    ['x.tgz', 'local archive file'],
    ['./x', 'local path'],
    ['../x', 'local path'],
    ['..', 'local path'],
    ['/x', 'local path'],
    ['~', 'local path'],
    ['~/x', 'local path'],
    ['~user/x', 'local path'],
    ['C:/x', 'local path'],
    ['file:x', 'local path'],
    ['file:///x', 'local path'],
    ['https://h/x', 'URL'],
    ['ftp://h/x', 'URL'],
    ['git+https://h/x', 'source-control source'],
    ['git://h/x', 'source-control source'],
    ['git@github.com:u/r.git', 'source-control source'],
    ['github:u/r', 'source-control source'],
    ['svn+https://h/r', 'source-control source'],
    ['$X', 'shell expansion, value unknown'],
    ['`x`', 'shell expansion, value unknown'],
    ['a\u0000b', 'not a package name'],
  ])('%j → %j', (spec, why) => {
    expect(nonRegistryReason(spec, archives)).toBe(why);
  });
});
