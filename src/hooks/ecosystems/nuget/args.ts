/**
 * The package arguments of `dotnet add [PROJECT] package <ID> [--version <V>]` and of .NET 10's
 * `dotnet package add <ID>[@<V>]`: the arguments after `package` (resp. `package add`).
 * dotnet adds one package per command: the first positional is it, the rest is not read.
 */
import {
  collect,
  nonRegistryReason,
  type OptionSpec,
  type PackageArgs,
  type SpecReading,
  scanArgs,
  WHY,
} from '../../arguments/options.js';

/** System.CommandLine: `--version 1.0`, `--version=1.0`, `--version:1.0`, `-v 1.0`. */
const SPEC: OptionSpec = {
  values: new Set([
    '-v',
    '--version',
    '-f',
    '--framework',
    '-s',
    '--source',
    '--package-directory',
    '--project',
    '--verbosity',
  ]),
  separators: '=:',
};

/** How `dotnet add package` options are read. */
export function nugetOptions(): OptionSpec {
  return SPEC;
}

const ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;
/** NuGet versions and ranges: `13.0.3`, `1.*`, `[1.0,2.0)`, `8.0.0-preview.1`. */
const VERSION = /^[A-Za-z0-9.*+,()[\] -]+$/;

/** One package id, optionally `Id@Version` (.NET 10), with the `--version` value when given. */
export function readNugetSpec(spec: string, version: string | null = null): SpecReading {
  const raw = spec.trim();
  if (raw === '') return null;
  const why = nonRegistryReason(raw, /\.nupkg$/i);
  if (why !== null) return { why };
  const at = raw.indexOf('@');
  const id = at === -1 ? raw : raw.slice(0, at);
  const inline = at === -1 ? '' : raw.slice(at + 1).trim();
  if (!ID.test(id)) return { why: id.includes('/') || id.includes('\\') ? WHY.localPath : WHY.invalid };
  const text = (version ?? inline).trim();
  if (text === '') return { request: { ecosystem: 'NuGet', name: id, version: null } };
  return VERSION.test(text)
    ? { request: { ecosystem: 'NuGet', name: id, version: text } }
    : { why: WHY.badVersion };
}

/** The package named by the arguments after `dotnet add [PROJECT] package`. */
export function packagesFromArgs(args: readonly string[]): PackageArgs {
  const result: PackageArgs = { installs: [], skipped: [] };
  const scanned = scanArgs(args, SPEC);
  let version: string | null = null;
  for (const arg of scanned) {
    if (arg.kind === 'option' && (arg.name === '-v' || arg.name === '--version')) version = arg.value;
  }
  const first = scanned.find((a) => a.kind === 'positional');
  if (first !== undefined) collect(result, first.value, readNugetSpec(first.value, version));
  return result;
}
