import type { Location } from './types.js';

// README "Location classes". Directory names are compared case-insensitively against every directory component.
const TEST_DIRS = new Set([
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
]);
const EXAMPLE_DIRS = new Set(['example', 'examples', 'sample', 'samples', 'demo', 'demos']);
const EXAMPLE_SUFFIXES = ['.example', '.sample', '.template', '.dist'];
const DOCS_DIRS = new Set(['doc', 'docs', 'documentation']);
const DOCS_SUFFIXES = ['.md', '.mdx', '.rst', '.adoc', '.ipynb'];

/** The location class of a repository path; the first matching class wins (test, example, docs, code). */
export function classifyPath(path: string): Location {
  const parts = path.toLowerCase().split('/');
  const file = parts.pop() ?? '';
  const dirs = parts;
  if (dirs.some((d) => TEST_DIRS.has(d)) || isTestFileName(file)) return 'test';
  if (dirs.some((d) => EXAMPLE_DIRS.has(d)) || EXAMPLE_SUFFIXES.some((s) => file.endsWith(s))) {
    return 'example';
  }
  if (dirs.some((d) => DOCS_DIRS.has(d)) || DOCS_SUFFIXES.some((s) => file.endsWith(s))) return 'docs';
  return 'code';
}

function isTestFileName(file: string): boolean {
  // "ends with _test" is read on the name without its extension: foo_test.go.
  const dot = file.lastIndexOf('.');
  const stem = dot > 0 ? file.slice(0, dot) : file;
  return (
    file.startsWith('test_') ||
    stem.endsWith('_test') ||
    file.includes('.test.') ||
    file.includes('.spec.') ||
    file.includes('_spec')
  );
}
