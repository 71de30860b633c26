/**
 * The package arguments of `go get` and `go install`: `module/path@v1.2.3`,
 * `module/path@latest`, `module/path`. Local packages (`.`, `./...`), standard-library paths,
 * patterns and removals (`@none`) are not registry packages.
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

/** Go's flag package: one option per word, `-flag`, `--flag`, `-flag=value` or `-flag value`. */
const VALUE_FLAGS = [
  'C',
  'p',
  'o',
  'mod',
  'modfile',
  'tags',
  'ldflags',
  'gcflags',
  'asmflags',
  'gccgoflags',
  'buildmode',
  'compiler',
  'overlay',
  'pkgdir',
  'toolexec',
  'pgo',
  'covermode',
  'coverpkg',
  'exec',
];

const SPEC: OptionSpec = { values: new Set(VALUE_FLAGS.flatMap((f) => [`-${f}`, `--${f}`])) };

/** How `go get`/`go install` options are read. */
export function goOptions(): OptionSpec {
  return SPEC;
}

const PATH = /^[A-Za-z0-9._~+-]+(?:\/[A-Za-z0-9._~+-]+)*$/;
const NOT_MODULES = new Set(['all', 'std', 'cmd', 'tool', 'work']);
/** The first element of a module path: a domain name (`github.com`, `golang.org`). */
const DOMAIN = /^[A-Za-z0-9][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)+$/;
/** Versions and queries: `v1.2.3`, `latest`, `patch`, `<v1.5`, a branch (`feature/x`) or a commit. */
const VERSION = /^[A-Za-z0-9._+~^<>=/-]+$/;

/** One `go get`/`go install` argument: a module (or package) path and the text after `@`. */
export function readGoSpec(spec: string): SpecReading {
  const raw = spec.trim();
  if (raw === '') return null;
  const why = nonRegistryReason(raw, /\.zip$/i);
  if (why !== null) return { why };
  const at = raw.lastIndexOf('@');
  let name = at === -1 ? raw : raw.slice(0, at);
  const version = at === -1 ? '' : raw.slice(at + 1).trim();
  if (name.endsWith('/...')) name = name.slice(0, -4);
  if (name === '...' || name.includes('...') || NOT_MODULES.has(name)) return { why: 'package pattern' };
  if (!PATH.test(name)) return { why: WHY.invalid };
  const domain = name.split('/')[0]!;
  if (!domain.includes('.'))
    return { why: 'not a remote module path (standard library, toolchain or local)' };
  if (!DOMAIN.test(domain)) return { why: WHY.invalid };
  if (version === 'none') return { why: 'removal (@none), not an install' };
  if (version === '') return { request: { ecosystem: 'Go', name, version: null } };
  return VERSION.test(version) ? { request: { ecosystem: 'Go', name, version } } : { why: WHY.badVersion };
}

/** The modules named by the arguments after `go get` / `go install`. */
export function packagesFromArgs(args: readonly string[]): PackageArgs {
  const result: PackageArgs = { installs: [], skipped: [] };
  for (const arg of scanArgs(args, SPEC)) {
    if (arg.kind === 'positional') collect(result, arg.value, readGoSpec(arg.value));
  }
  return result;
}
