/**
 * The package arguments of `cargo add`: `crate`, `crate@1.0`, `crate@=1.0.3`. With
 * `--git URL` or `--path DIR` the crates come from that source, not from crates.io, and are skipped.
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

const SPEC: OptionSpec = {
  values: new Set([
    '-F',
    '--features',
    '--rename',
    '-p',
    '--package',
    '--manifest-path',
    '--lockfile-path',
    '--registry',
    '--target',
    '--git',
    '--branch',
    '--tag',
    '--rev',
    '--path',
    '--base',
    '--vers', // cargo-edit's old `cargo add serde --vers 1`
    '--color',
    '--config',
    '-Z',
    '-C',
  ]),
  clusters: true,
};

/** How cargo's options are read (clap: `-F derive`, `-Fderive`, `--features=a,b`). */
export function cargoOptions(): OptionSpec {
  return SPEC;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const ARCHIVES = /\.crate$/i;
/** Version requirements: `1.0`, `=1.0.3`, `>=1, <2`, `1.0.0-beta.1`. */
const VERSION = /^[A-Za-z0-9.^~=<>*,+_ -]+$/;

/** One crate argument: `serde`, `serde@1.0`; or not a crates.io crate. */
export function readCargoSpec(spec: string): SpecReading {
  const raw = spec.trim();
  if (raw === '') return null;
  const why = nonRegistryReason(raw, ARCHIVES);
  if (why !== null) return { why };
  if (raw.startsWith('+')) return null; // a feature or toolchain word, not a crate
  const at = raw.indexOf('@');
  const name = at === -1 ? raw : raw.slice(0, at);
  const version = at === -1 ? '' : raw.slice(at + 1).trim();
  if (!NAME.test(name)) return { why: name.includes('/') ? WHY.localPath : WHY.invalid };
  if (version === '') return { request: { ecosystem: 'crates.io', name, version: null } };
  return VERSION.test(version)
    ? { request: { ecosystem: 'crates.io', name, version } }
    : { why: WHY.badVersion };
}

/** The crates named by the arguments after `cargo add`. */
export function packagesFromArgs(args: readonly string[]): PackageArgs {
  const result: PackageArgs = { installs: [], skipped: [] };
  const scanned = scanArgs(args, SPEC);
  let source: string | null = null;
  let version: string | null = null;
  for (const arg of scanned) {
    if (arg.kind !== 'option' || arg.value === null) continue;
    if (arg.name === '--git') {
      result.skipped.push({ spec: arg.value, why: WHY.sourceControl });
      source = 'from a source-control source (--git)';
    } else if (arg.name === '--path') {
      result.skipped.push({ spec: arg.value, why: WHY.localPath });
      source = 'from a local path (--path)';
    } else if (arg.name === '--vers') {
      version = arg.value;
    }
  }
  for (const arg of scanned) {
    if (arg.kind !== 'positional') continue;
    const reading = readCargoSpec(arg.value);
    if (reading !== null && 'request' in reading) {
      if (source !== null) {
        result.skipped.push({ spec: arg.value, why: source });
        continue;
      }
      if (reading.request.version === null && version !== null && version !== '') {
        reading.request.version = version;
      }
    }
    collect(result, arg.value, reading);
  }
  return result;
}
