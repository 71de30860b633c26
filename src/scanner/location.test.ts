import { describe, expect, it } from 'vitest';
import { classifyPath } from './location.js';
import type { Location } from './types.js';

/** Every name of each rule, so dropping one from a list fails a row. */
const DIRS: [Location, string[]][] = [
  [
    'test',
    [
      'test',
      'tests',
      '__tests__',
      'spec',
      'specs',
      'testdata',
      'fixtures',
      '__fixtures__',
      '__mocks__',
      'mocks',
    ],
  ],
  ['example', ['example', 'examples', 'sample', 'samples', 'demo', 'demos']],
  ['docs', ['doc', 'docs', 'documentation']],
];
const SUFFIXES: [Location, string[]][] = [
  ['example', ['.example', '.sample', '.template', '.dist']],
  ['docs', ['.md', '.mdx', '.rst', '.adoc', '.ipynb']],
];
const TEST_FILES = [
  'test_config.py',
  'config_test.go',
  'config_test',
  'app.test.ts',
  'app.spec.js',
  'app_spec.rb',
  'app_spec',
  // A dotfile has no extension: its whole name is the stem, so `.env_test` ends with `_test`.
  '.env_test',
];

const upper = (s: string) => s.toUpperCase();
const mixed = (s: string) => s.replace(/[a-z]/, (c) => c.toUpperCase());

describe('location classes: the path decides, first match wins', () => {
  describe.each(DIRS)('%s directories', (location, names) => {
    it.each(names)('%s, at the top, deep inside, and in any letter case', (name) => {
      for (const variant of [name, upper(name), mixed(name)]) {
        expect(classifyPath(`${variant}/config.env`)).toBe(location);
        expect(classifyPath(`src/app/${variant}/deep/config.env`)).toBe(location);
      }
    });
    it.each(names)('a file named %s is not a directory of that name', (name) => {
      expect(classifyPath(`src/${name}`)).toBe('code');
    });
  });

  describe.each(SUFFIXES)('%s suffixes', (location, suffixes) => {
    it.each(suffixes)('%s, in any letter case', (suffix) => {
      for (const variant of [suffix, upper(suffix)])
        expect(classifyPath(`config/settings${variant}`)).toBe(location);
    });
    it.each(suffixes)('%s only at the end of the name', (suffix) => {
      expect(classifyPath(`config/settings${suffix}.env`)).toBe('code');
    });
  });

  it.each(TEST_FILES)('test file name %s, in any letter case', (name) => {
    for (const variant of [name, upper(name)]) expect(classifyPath(`src/${variant}`)).toBe('test');
  });

  it.each([
    'src/testing/config.env',
    'src/contest.js',
    'latest/config.env',
    'mydocs/setup.env',
    'src/examples_old/x.env',
    'src/attest_config.py',
    'src/test.env',
    'src/spec.env',
    'src/mocks.env',
    '.env',
    'config/deploy.env',
    'README.txt',
  ])('%s is code', (path) => {
    expect(classifyPath(path)).toBe('code');
  });

  it.each([
    ['tests/examples/docs/key.md', 'test'],
    ['examples/tests/key.env', 'test'],
    ['docs/test_setup.md', 'test'],
    ['docs/examples/key.md', 'example'],
    ['examples/key.md', 'example'],
    ['docs/settings.example', 'example'],
    ['docs/key.env', 'docs'],
    ['documentation/key.template', 'example'],
    ['sample/app.spec.ts', 'test'],
  ] as [string, Location][])('%s is %s: test before example before docs before code', (path, location) => {
    expect(classifyPath(path)).toBe(location);
  });

  it('the examples the specification gives', () => {
    expect(classifyPath('tests/test_app.py')).toBe('test');
    expect(classifyPath('.env.example')).toBe('example');
    expect(classifyPath('README.md')).toBe('docs');
    expect(classifyPath('config/deploy.env')).toBe('code');
  });
});
