import { describe, expect, it } from 'vitest';
import { parseCommandLine } from './parse-command.js';

describe('installs from a registry the command names', () => {
  it.each([
    'npm i @acme/internal --registry https://npm.acme.test',
    'npm i @acme/internal --registry=https://npm.acme.test',
    'npm install @acme/internal --@acme:registry=https://npm.acme.test',
    'npm_config_registry=https://npm.acme.test npm i @acme/internal',
    'pip install -i https://pypi.acme.test/simple acme-tools',
    'pip install --extra-index-url https://pypi.acme.test/simple acme-tools',
    'PIP_INDEX_URL=https://pypi.acme.test/simple pip install acme-tools',
    'uv pip install --index-url https://pypi.acme.test acme-tools',
    'cargo add acme-core --registry acme',
    'GOPRIVATE=git.acme.test go get git.acme.test/platform/core',
    'dotnet add package Acme.Core --source https://nuget.acme.test/v3/index.json',
  ])('%s', (line) => {
    const { installs } = parseCommandLine(line);
    expect(installs).toHaveLength(1);
    expect(installs[0]!.customRegistry).toBe(true);
  });

  it('marks nothing for the public registries, nor for the other part of a chain', () => {
    const { installs } = parseCommandLine('npm i lodash && pip install -i https://pypi.acme.test acme-tools');
    expect(installs.map((r) => [r.name, r.customRegistry ?? false])).toEqual([
      ['lodash', false],
      ['acme-tools', true],
    ]);
    expect(parseCommandLine('npm i -s lodash').installs[0]!.customRegistry).toBeUndefined();
  });
});
