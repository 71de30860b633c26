import { describe, expect, it } from 'vitest';
import { packagesFromArgs, readNugetSpec } from './args.js';

describe('packagesFromArgs (dotnet add package)', () => {
  it.each([
    [['Newtonsoft.Json'], 'Newtonsoft.Json', null],
    [['Serilog', '--version', '3.1.1'], 'Serilog', '3.1.1'],
    [['Serilog', '-v', '3.1.1'], 'Serilog', '3.1.1'],
    [['Serilog', '--version=3.1.1'], 'Serilog', '3.1.1'],
    [['Serilog', '--version:3.1.1'], 'Serilog', '3.1.1'],
    [['-s', 'https://nuget.example/v3/index.json', 'Polly', '--prerelease'], 'Polly', null],
    [['Polly', '-f', 'net8.0', '-n'], 'Polly', null],
    [['Polly', '--version', '[8.0,9.0)'], 'Polly', '[8.0,9.0)'],
    [['Newtonsoft.Json@13.0.3'], 'Newtonsoft.Json', '13.0.3'],
    [['Dapper', 'Extra'], 'Dapper', null],
  ])('%j is %s %s', (args, name, version) => {
    expect(packagesFromArgs(args)).toEqual({
      installs: [{ ecosystem: 'NuGet', name, version }],
      skipped: [],
    });
  });

  it('reads nothing without a package id', () => {
    expect(packagesFromArgs(['--version', '1.0'])).toEqual({ installs: [], skipped: [] });
  });

  it.each([
    ['./pkgs/My.Package.1.0.0.nupkg', 'local path'],
    ['My.Package.1.0.0.nupkg', 'local archive file'],
    ['https://h/x.nupkg', 'URL'],
    ['a b', 'not a package name'],
  ])('%s is skipped: %s', (spec, why) => {
    expect(readNugetSpec(spec)).toEqual({ why });
  });
});
