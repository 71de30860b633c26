import { describe, expect, it } from 'vitest';
import { ECOSYSTEMS } from '../ecosystems/index.js';
import type { Ecosystem } from '../types.js';
import {
  describeTyposquat,
  distanceOne,
  findTyposquat,
  isPopular,
  MIN_EDIT_LENGTH,
  normalizeName,
  PopularIndex,
  popularIndex,
  SHORT_TARGET_RANKS,
} from './typosquat.js';

type Case = [Ecosystem, string, string, string];

describe('findTyposquat against the shipped lists', () => {
  it.each<Case>([
    // npm
    ['npm', 'lodahs', 'lodash', 'swap'],
    ['npm', 'loadsh', 'lodash', 'swap'],
    ['npm', 'expres', 'express', 'edit'],
    ['npm', 'mongose', 'mongoose', 'edit'],
    ['npm', 'axois', 'axios', 'swap'],
    ['npm', 'crossenv', 'cross-env', 'separator'],
    ['npm', 'reactdom', 'react-dom', 'separator'],
    // `babel-core` is itself on the list (Babel 6), so the scope confusion is shown with its variants.
    ['npm', 'babelcore', '@babel/core', 'scope'],
    ['npm', 'babel.core', '@babel/core', 'scope'],
    ['npm', 'types-node', '@types/node', 'scope'],
    ['npm', '@lodash/lodash', 'lodash', 'scope'],
    ['npm', '@bable/core', '@babel/core', 'swap'],
    ['npm', 'Lodash', 'lodash', 'case'],
    ['npm', 'jsonstream', 'JSONStream', 'case'],
    // PyPI
    ['PyPI', 'reqeusts', 'requests', 'swap'],
    ['PyPI', 'python-dateutils', 'python-dateutil', 'edit'],
    ['PyPI', 'python3-dateutil', 'python-dateutil', 'edit'],
    ['PyPI', 'pythondateutil', 'python-dateutil', 'separator'],
    ['PyPI', 'colourama', 'colorama', 'edit'],
    ['PyPI', 'jeIlyfish', 'jellyfish', 'edit'],
    ['PyPI', 'urlib3', 'urllib3', 'edit'],
    ['PyPI', 'djanga', 'django', 'edit'],
    ['PyPI', 'setup-tools', 'setuptools', 'separator'],
    // crates.io
    ['crates.io', 'sedre', 'serde', 'swap'],
    ['crates.io', 'tokoi', 'tokio', 'swap'],
    ['crates.io', 'reqwets', 'reqwest', 'swap'],
    ['crates.io', 'serdejson', 'serde_json', 'separator'],
    // Go
    ['Go', 'github.com/gin-gonlc/gin', 'github.com/gin-gonic/gin', 'edit'],
    ['Go', 'github.com/strechr/testify', 'github.com/stretchr/testify', 'edit'],
    ['Go', 'github.com/strechr/testify/assert', 'github.com/stretchr/testify', 'edit'],
    ['Go', 'github.com/gingonic/gin', 'github.com/gin-gonic/gin', 'separator'],
    ['Go', 'gitlab.com/stretchr/testify', 'github.com/stretchr/testify', 'host'],
    // NuGet
    ['NuGet', 'Newtonsoft.Jsno', 'Newtonsoft.Json', 'swap'],
    ['NuGet', 'NewtonsoftJson', 'Newtonsoft.Json', 'separator'],
    ['NuGet', 'Serilogg', 'Serilog', 'edit'],
  ])('%s %s looks like %s (%s)', (eco, name, target, kind) => {
    expect(isPopular(eco, name)).toBe(false);
    expect(findTyposquat(eco, name)).toEqual({ target, kind });
  });

  it.each<[Ecosystem, string]>([
    ['npm', 'react'],
    ['npm', 'lodash'],
    ['npm', 'react-dom'],
    ['npm', 'express'],
    ['npm', 'cross-env'],
    ['npm', 'babel-core'],
    ['npm', '@babel/core'],
    ['npm', '@types/node'],
    ['npm', 'JSONStream'],
    ['PyPI', 'requests'],
    ['PyPI', 'Requests'],
    ['PyPI', 'django'],
    ['PyPI', 'Django'],
    ['PyPI', 'python-dateutil'],
    ['PyPI', 'python_dateutil'],
    ['PyPI', 'colorama'],
    ['crates.io', 'serde'],
    ['crates.io', 'serde_json'],
    ['crates.io', 'serde-json'],
    ['crates.io', 'Tokio'],
    ['Go', 'github.com/gin-gonic/gin'],
    ['Go', 'github.com/gin-gonic/gin/binding'],
    ['Go', 'github.com/stretchr/testify/assert'],
    ['Go', 'github.com/go-chi/chi/v5'],
    ['Go', 'golang.org/x/crypto/ssh'],
    ['Go', 'github.com/Sirupsen/logrus'],
    ['Go', 'gopkg.in/yaml.v3'],
    ['NuGet', 'Newtonsoft.Json'],
    ['NuGet', 'newtonsoft.json'],
    ['NuGet', 'xunit'],
  ])('%s %s is popular, so never a squat', (eco, name) => {
    expect(isPopular(eco, name)).toBe(true);
    expect(findTyposquat(eco, name)).toBeNull();
  });

  it.each<[Ecosystem, string, string]>([
    ['npm', 'vuw', 'short: not judged by edit distance'],
    ['npm', 'mss', 'short'],
    ['npm', 'reac', 'short'],
    ['crates.io', 'randd', 'the target (rand) is short'],
    ['crates.io', 'serd', 'short'],
    ['PyPI', 'torh', 'short'],
    ['npm', 'my-totally-unrelated-package', 'unrelated'],
    ['PyPI', 'quantum-teapot-orchestrator', 'unrelated'],
    ['NuGet', 'Contoso.Internal.Widgets', 'unrelated'],
    ['Go', 'example.com/acme/widgets', 'unrelated'],
    ['npm', 'lodash4', 'a digit added at the end is a fork or a version'],
    ['Go', 'gopkg.in/yaml.v4', 'a digit for a digit is a version'],
    ['npm', '@types/nod', 'same scope as @types/node: the same publisher'],
    ['npm', '@babel/cor', 'same scope as @babel/core'],
    ['Go', 'github.com/stretchr/testfy', 'same owner as github.com/stretchr/testify'],
    ['Go', 'golang.org/x/cryptoo', 'same host as golang.org/x/crypto'],
    ['Go', 'github.com/someone/gin', 'a fork under another owner is not a typo'],
    ['PyPI', 'dateutil-python', 'word order is not judged (mostly legitimate names)'],
    ['npm', '', 'empty'],
  ])('%s %s is not flagged (%s)', (eco, name) => {
    expect(findTyposquat(eco, name)).toBeNull();
  });

  it('has a list for every ecosystem', () => {
    for (const { id } of ECOSYSTEMS) expect(popularIndex(id).size).toBeGreaterThan(100);
  });
});

describe('PopularIndex rules', () => {
  it('prefers the most popular look-alike', () => {
    expect(new PopularIndex('npm', ['react-dom', 'react-doc']).findTyposquat('react-dox')?.target).toBe(
      'react-dom',
    );
    expect(new PopularIndex('npm', ['react-doc', 'react-dom']).findTyposquat('react-dox')?.target).toBe(
      'react-doc',
    );
    // Across kinds too: a separator confusion with the first beats an edit of the second.
    expect(new PopularIndex('npm', ['cross-env', 'crossenvy']).findTyposquat('crossenv')).toEqual({
      target: 'cross-env',
      kind: 'separator',
    });
  });

  it('compares short names only with the most popular ones', () => {
    const fillers = Array.from({ length: SHORT_TARGET_RANKS }, (_, i) => `filler-package-${i}`);
    expect(new PopularIndex('npm', ['chalk', ...fillers]).findTyposquat('chalkk')?.target).toBe('chalk');
    expect(new PopularIndex('npm', [...fillers, 'chalk']).findTyposquat('chalkk')).toBeNull();
    // Longer names are targets at any rank.
    expect(new PopularIndex('npm', [...fillers, 'express']).findTyposquat('expres')?.target).toBe('express');
    // Below MIN_EDIT_LENGTH never.
    const short = 'abcd';
    expect(short.length).toBeLessThan(MIN_EDIT_LENGTH);
    expect(new PopularIndex('npm', [short]).findTyposquat('abce')).toBeNull();
  });

  // Each index built here is new: the shipped lists' indexes are built once per process and kept,
  // so only a fresh index shows how one is built.
  it("indexes the ecosystem's own look-alikes: an npm scope, a Go host", () => {
    expect(new PopularIndex('npm', ['@types/node']).findTyposquat('types-node')).toEqual({
      target: '@types/node',
      kind: 'scope',
    });
    expect(
      new PopularIndex('Go', ['github.com/stretchr/testify']).findTyposquat('gitlab.com/stretchr/testify'),
    ).toEqual({ target: 'github.com/stretchr/testify', kind: 'host' });
  });

  it('a more popular look-alike found first is not replaced by a less popular one of another kind', () => {
    expect(new PopularIndex('npm', ['typesnode', '@types/node']).findTyposquat('types-node')).toEqual({
      target: 'typesnode',
      kind: 'separator',
    });
    expect(new PopularIndex('npm', ['cross-env', 'cross_env']).findTyposquat('crossenv')).toEqual({
      target: 'cross-env',
      kind: 'separator',
    });
  });

  it('keeps the first spelling of one normal form, and compares case-sensitive names trimmed', () => {
    expect(new PopularIndex('npm', ['JSONStream', 'JsonStream']).findTyposquat('jsonstream')).toEqual({
      target: 'JSONStream',
      kind: 'case',
    });
    const npm = new PopularIndex('npm', ['lodash']);
    expect(npm.isPopular(' lodash ')).toBe(true);
    expect(npm.findTyposquat(' lodash ')).toBeNull();
  });

  it('keeps every name that shares a deletion, however many', () => {
    // All three lose one character to `abcdef`; `abcdefz` is one edit from the third only.
    expect(new PopularIndex('npm', ['xabcdef', 'yabcdef', 'abcdefh']).findTyposquat('abcdefz')).toEqual({
      target: 'abcdefh',
      kind: 'edit',
    });
  });

  it('a popular name of 6 characters past the short-name ranks, or of 4, is no edit target', () => {
    const fillers = Array.from({ length: SHORT_TARGET_RANKS }, (_, i) => `filler-package-${i}`);
    expect(new PopularIndex('npm', [...fillers, 'qwerty']).findTyposquat('qwertz')).toBeNull();
    expect(new PopularIndex('npm', ['qwerty']).findTyposquat('qwertz')?.target).toBe('qwerty');
    expect(new PopularIndex('npm', ['abcd']).findTyposquat('abcde')).toBeNull();
  });

  it('finds every kind of distance-one neighbour through the deletion index', () => {
    const index = new PopularIndex('npm', ['express']);
    for (const [name, kind] of [
      ['expres', 'edit'], // deletion
      ['expresss', 'edit'], // insertion at the end
      ['exxpress', 'edit'], // insertion inside
      ['xpress', 'edit'], // first character removed
      ['exprass', 'edit'], // substitution
      ['fxpress', 'edit'], // first character replaced
      ['exrpess', 'swap'], // transposition
      ['epxress', 'swap'],
    ] as const) {
      expect(index.findTyposquat(name), name).toEqual({ target: 'express', kind });
    }
    for (const name of ['expresso-machine', 'exp', 'sserpxe', 'exprxsx', 'epxerss']) {
      expect(index.findTyposquat(name), name).toBeNull();
    }
  });

  it('normalizes names the way each registry does', () => {
    expect(normalizeName('PyPI', 'Python_Date.Util')).toBe('python-date-util');
    expect(normalizeName('crates.io', 'Serde-JSON')).toBe('serde_json');
    expect(normalizeName('Go', 'github.com/Go-Chi/chi/v5')).toBe('github.com/go-chi/chi');
    expect(normalizeName('NuGet', 'Newtonsoft.Json')).toBe('newtonsoft.json');
  });

  // How fast a lookup is (an index, not a scan of the list) is `npm run bench:hot-paths`'s figure.
});

describe('distanceOne', () => {
  it.each([
    ['lodash', 'lodahs', 'swap'],
    ['lodash', 'lodas', 'edit'],
    ['lodash', 'lodashh', 'edit'],
    ['lodash', 'lodesh', 'edit'],
    ['vue2', 'vue3', 'digit'],
    ['pngjs', 'pngjs3', 'digit'],
    ['python-dateutil', 'python3-dateutil', 'edit'],
    ['lodash', 'lodash', null],
    ['lodash', 'ldoahs', null],
    ['lodash', 'lod', null],
    // Two differences that only look like a swap from one side, or not at all.
    ['abcd', 'axyd', null],
    ['abcd', 'axbz', null],
    ['abcd', 'acxd', null],
    ['abcd', 'axbd', null],
    ['abcde', 'abxd', null],
    // Digits: only 0-9 on both sides make a version; '/' and ':' sit just outside them.
    ['abc1', 'abcd', 'edit'],
    ['ab/', 'ab1', 'edit'],
    ['ab:', 'ab1', 'edit'],
    ['ab0', 'ab1', 'digit'],
    ['ab9', 'ab1', 'digit'],
  ] as const)('%s / %s: %s', (a, b, how) => {
    expect(distanceOne(a, b)).toBe(how);
    expect(distanceOne(b, a)).toBe(how);
  });
});

describe('describeTyposquat', () => {
  it('names the look-alike', () => {
    expect(describeTyposquat('lodahs', { target: 'lodash', kind: 'swap' })).toBe(
      '`lodahs` looks like `lodash`; did you mean it?',
    );
    expect(describeTyposquat('expres', { target: 'express', kind: 'edit' })).toBe(
      '`expres` looks like `express`; did you mean it?',
    );
    expect(describeTyposquat('crossenv', { target: 'cross-env', kind: 'separator' })).toBe(
      '`crossenv` looks like `cross-env` with other separators; did you mean it?',
    );
  });

  it('words scope, host and case confusions for what they are', () => {
    expect(describeTyposquat('babelcore', { target: '@babel/core', kind: 'scope' })).toBe(
      '`babelcore` looks like `@babel/core` without its scope; did you mean `@babel/core`?',
    );
    expect(describeTyposquat('@evil/core', { target: '@babel/core', kind: 'scope' })).toBe(
      '`@evil/core` looks like `@babel/core` under another scope; did you mean `@babel/core`?',
    );
    expect(describeTyposquat('@lodash/lodash', { target: 'lodash', kind: 'scope' })).toBe(
      "`@lodash/lodash` looks like `lodash` under a scope that is not its publisher's; did you mean `lodash`?",
    );
    expect(
      describeTyposquat('gitlab.com/stretchr/testify', {
        target: 'github.com/stretchr/testify',
        kind: 'host',
      }),
    ).toBe(
      '`gitlab.com/stretchr/testify` looks like `github.com/stretchr/testify` on another host; did you mean `github.com/stretchr/testify`?',
    );
    expect(describeTyposquat('jsonstream', { target: 'JSONStream', kind: 'case' })).toBe(
      '`jsonstream` looks like `JSONStream` in other letter case; did you mean it?',
    );
  });

  it('describes what findTyposquat finds', () => {
    const found = findTyposquat('PyPI', 'reqeusts');
    expect(found).not.toBeNull();
    expect(describeTyposquat('reqeusts', found!)).toBe('`reqeusts` looks like `requests`; did you mean it?');
  });
});
