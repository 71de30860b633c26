/**
 * What the per-ecosystem argument readers (`src/hooks/ecosystems/<eco>/args.ts`) share: an option
 * scanner that knows which options take a value, their common answer shape, and the test for specs
 * that do not name a registry package (local paths, URLs, source control, archives).
 */
import type { PackageRequest, SkippedSpec } from '../types.js';

/** What an ecosystem's install arguments ask for. Every args module answers with this shape. */
export interface PackageArgs {
  installs: PackageRequest[];
  skipped: SkippedSpec[];
}

/** An install of the lockfile (`npm ci`, `poetry install`): no package named, nothing to check. */
export const NOTHING_NAMED: PackageArgs = Object.freeze({ installs: [], skipped: [] }) as PackageArgs;

/** One package argument read: a registry package, a reason it is not one, or nothing at all. */
export type SpecReading = { request: PackageRequest } | { why: string } | null;

export interface OptionSpec {
  /** Options, as typed with their dashes (`--registry`, `-w`), that take a value. */
  readonly values: ReadonlySet<string>;
  /**
   * getopt-style short options: `-Ur req.txt` is `-U` then `-r req.txt`, and `-rreq.txt` is
   * `-r req.txt`. Without it a single-dash word is one option (`-ws`, go's `-tags`).
   */
  readonly clusters?: boolean;
  /** Characters that attach a value to an option name; `=` by default (dotnet adds `:`). */
  readonly separators?: string;
}

export type ScannedArg =
  | { kind: 'positional'; value: string }
  | { kind: 'option'; name: string; value: string | null };

/** Reads arguments as options (with their values) and positionals; `--` ends the options. */
export function scanArgs(args: readonly string[], spec: OptionSpec): ScannedArg[] {
  const out: ScannedArg[] = [];
  const separators = spec.separators ?? '=';
  let optionsEnded = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (optionsEnded || word.length < 2 || !word.startsWith('-')) {
      out.push({ kind: 'positional', value: word });
      continue;
    }
    if (word === '--') {
      optionsEnded = true;
      continue;
    }
    if (word.startsWith('--') || !spec.clusters) {
      let cut = -1;
      for (let j = 1; j < word.length; j++) {
        if (separators.includes(word[j]!)) {
          cut = j;
          break;
        }
      }
      if (cut > 0) {
        out.push({ kind: 'option', name: word.slice(0, cut), value: word.slice(cut + 1) });
      } else if (spec.values.has(word)) {
        out.push({ kind: 'option', name: word, value: args[i + 1] ?? null });
        i++;
      } else {
        out.push({ kind: 'option', name: word, value: null });
      }
      continue;
    }
    for (let j = 1; j < word.length; j++) {
      const name = `-${word[j]}`;
      if (!spec.values.has(name)) {
        out.push({ kind: 'option', name, value: null });
        continue;
      }
      const rest = word.slice(j + 1);
      if (rest !== '') {
        out.push({ kind: 'option', name, value: rest.startsWith('=') ? rest.slice(1) : rest });
      } else {
        out.push({ kind: 'option', name, value: args[i + 1] ?? null });
        i++;
      }
      break;
    }
  }
  return out;
}

/** The index of the first positional (a subcommand, a wrapped command) after leading options, or -1. */
export function firstPositional(args: readonly string[], spec: OptionSpec, from = 0): number {
  for (let i = from; i < args.length; i++) {
    const word = args[i]!;
    if (word === '--') return i + 1 < args.length ? i + 1 : -1;
    if (word.length < 2 || !word.startsWith('-')) return i;
    if (word.startsWith('--') || !spec.clusters) {
      if (spec.values.has(word)) i++;
      continue;
    }
    for (let j = 1; j < word.length; j++) {
      if (spec.values.has(`-${word[j]}`)) {
        if (j === word.length - 1) i++; // `-u user`; `-uuser` carries its value
        break;
      }
    }
  }
  return -1;
}

export const WHY = {
  localPath: 'local path',
  archive: 'local archive file',
  url: 'URL',
  sourceControl: 'source-control source',
  shell: 'shell expansion, value unknown',
  invalid: 'not a package name',
  badVersion: 'not a version',
  requirements: 'requirements file not read',
} as const;

const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const SOURCE_CONTROL = /^(?:git\+|git:|git@[^:/\s]+:|(?:github|gitlab|bitbucket|gist):|(?:svn|hg|bzr)[+:])/i;
const SCHEME_URL = /^[a-z][a-z0-9+.-]*:\/\//i;
const LOCAL_PATH = /^(?:\.{1,2}(?:[\\/[]|$)|[\\/]|~[\w.-]*(?:[\\/]|$)|[a-z]:[\\/]|file:)/i;

/**
 * Why a package argument is not a registry package, or null when it may be one.
 * `archives` matches the ecosystem's package-file names (`.tgz`, `.whl`...).
 */
export function nonRegistryReason(spec: string, archives: RegExp): string | null {
  if (CONTROL_CHARS.test(spec)) return WHY.invalid;
  if (spec.includes('$') || spec.includes('`')) return WHY.shell;
  if (SOURCE_CONTROL.test(spec)) return WHY.sourceControl;
  if (SCHEME_URL.test(spec)) return /^file:/i.test(spec) ? WHY.localPath : WHY.url;
  if (LOCAL_PATH.test(spec)) return WHY.localPath;
  // `name@https://host/x.tgz`, `pkg @ https://host/x.whl`: the reader of the part after `@` says why.
  if (!spec.includes('@') && archives.test(spec)) return WHY.archive;
  return null;
}

/** Collects readings into the common answer, skipping specs with their reasons. */
export function collect(into: PackageArgs, spec: string, reading: SpecReading): void {
  if (reading === null) return;
  if ('request' in reading) into.installs.push(reading.request);
  else into.skipped.push({ spec, why: reading.why });
}
