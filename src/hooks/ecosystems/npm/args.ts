/**
 * The package arguments of an npm-family install (npm, cnpm, yarn, pnpm, bun): `add|install|i`
 * followed by options and package specs. Version text is what follows the `@`; an alias
 * `alias@npm:real@1` names `real`.
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

export type NpmTool = 'npm' | 'yarn' | 'pnpm' | 'bun';

/** Options that take a value, per tool (before or after the subcommand). Boolean flags are not listed. */
const VALUE_OPTIONS: Record<NpmTool, readonly string[]> = {
  npm: [
    '--registry',
    '--prefix',
    '-C',
    '--workspace',
    '-w',
    '--tag',
    '--cache',
    '--userconfig',
    '--globalconfig',
    '--loglevel',
    '--save-prefix',
    '--omit',
    '--include',
    '--install-strategy',
    '--before',
    '--otp',
    '--scope',
    '--proxy',
    '--https-proxy',
    '--noproxy',
    '--ca',
    '--cafile',
    '--cert',
    '--key',
    '--location',
    '--script-shell',
    '--cpu',
    '--os',
    '--libc',
    '--fetch-retries',
    '--fetch-timeout',
    '--fetch-retry-mintimeout',
    '--fetch-retry-maxtimeout',
    '--maxsockets',
    '--node-options',
    '--lockfile-version',
    '--auth-type',
    '--depth',
  ],
  yarn: [
    '--cwd',
    '--registry',
    '--modules-folder',
    '--cache-folder',
    '--global-folder',
    '--link-folder',
    '--preferred-cache-folder',
    '--mutex',
    '--network-timeout',
    '--network-concurrency',
    '--use-yarnrc',
    '--otp',
    '--proxy',
    '--https-proxy',
    '--mode',
  ],
  pnpm: [
    '--filter',
    '-F',
    '--filter-prod',
    '--dir',
    '-C',
    '--registry',
    '--store-dir',
    '--virtual-store-dir',
    '--modules-dir',
    '--lockfile-dir',
    '--global-dir',
    '--reporter',
    '--loglevel',
    '--network-concurrency',
    '--child-concurrency',
    '--workspace-concurrency',
    '--test-pattern',
    '--changed-files-ignore-pattern',
    '--resolution-mode',
    '--node-linker',
    '--package-import-method',
    '--save-catalog-name',
    '--allow-build',
    '--cpu',
    '--os',
    '--libc',
  ],
  bun: [
    '--cwd',
    '--registry',
    '--cache-dir',
    '-c',
    '--config',
    '--backend',
    '--omit',
    '--network-concurrency',
    '--concurrent-scripts',
    '--ca',
    '--cafile',
    '--linker',
    '--filter',
    '--cpu',
    '--os',
    '--minimum-release-age',
  ],
};

const SPECS: Record<NpmTool, OptionSpec> = {
  npm: { values: new Set(VALUE_OPTIONS.npm) },
  yarn: { values: new Set(VALUE_OPTIONS.yarn) },
  pnpm: { values: new Set(VALUE_OPTIONS.pnpm) },
  bun: { values: new Set(VALUE_OPTIONS.bun) },
};

/** How the tool's options are read (npm's nopt: one option per word, `--opt=value` or `--opt value`). */
export function npmOptions(tool: NpmTool): OptionSpec {
  return SPECS[tool];
}

const NAME = /^(?:@[a-z0-9][\w.~-]*\/)?[a-z0-9][\w.~-]*$/i;
/** Semver ranges (`^1.2`, `>=1 <2 || 3.x`) and dist-tags. */
const VERSION = /^[A-Za-z0-9.^~=<>*|,+_ -]+$/;
const ARCHIVES = /\.(?:tgz|tar\.gz|tar)$/i;
const NO_ARCHIVE = /(?!)/;
const PROTOCOL = /^([a-z][a-z0-9+.-]*):/i;
const LOCAL_PROTOCOLS = new Set(['file', 'link', 'workspace', 'portal', 'patch']);

function readNameAndRange(raw: string, aliasAllowed: boolean): SpecReading {
  if (raw.startsWith('npm:')) {
    return aliasAllowed ? readNameAndRange(raw.slice(4), false) : { why: WHY.invalid };
  }
  const at = raw.indexOf('@', raw.startsWith('@') ? 1 : 0);
  const name = at === -1 ? raw : raw.slice(0, at);
  const range = at === -1 ? '' : raw.slice(at + 1).trim();
  if (!name.startsWith('@') && name.includes('/')) return { why: WHY.sourceControl }; // user/repo (GitHub)
  if (name.length > 214 || !NAME.test(name)) return { why: WHY.invalid };
  if (range.startsWith('npm:')) {
    return aliasAllowed ? readNameAndRange(range.slice(4), false) : { why: WHY.invalid };
  }
  const protocol = PROTOCOL.exec(range)?.[1]?.toLowerCase();
  if (protocol === 'catalog') {
    // pnpm: the version comes from the workspace catalog; the package is still from the registry.
    return { request: { ecosystem: 'npm', name, version: null } };
  }
  if (protocol !== undefined) {
    const why =
      nonRegistryReason(range, NO_ARCHIVE) ??
      (LOCAL_PROTOCOLS.has(protocol) ? WHY.localPath : `not an npm registry source (${protocol}:)`);
    return { why };
  }
  if (/^(?:\.{1,2})?[\\/]/.test(range)) return { why: WHY.localPath };
  if (range.includes('/')) return { why: WHY.sourceControl }; // name@user/repo, name@git@host:x/y
  if (range === '') return { request: { ecosystem: 'npm', name, version: null } };
  return VERSION.test(range)
    ? { request: { ecosystem: 'npm', name, version: range } }
    : { why: WHY.badVersion };
}

/** One npm package argument: `pkg`, `pkg@^1.2`, `@scope/pkg@1`, `alias@npm:real@1`, or not a registry package. */
export function readNpmSpec(spec: string): SpecReading {
  const raw = spec.trim();
  if (raw === '') return null;
  const why = nonRegistryReason(raw, ARCHIVES);
  if (why !== null) return { why };
  return readNameAndRange(raw, true);
}

/**
 * The packages named by the arguments after `install`/`add` (options skipped with their values).
 * `leading` are the options before the subcommand (`npm --tag beta install x`). npm's `--tag` is the
 * dist-tag installed for a package named without a version, so it is that package's version as the
 * user gave it; a version in the spec (`x@1.2.3`) wins.
 */
export function packagesFromArgs(
  args: readonly string[],
  tool: NpmTool = 'npm',
  leading: readonly string[] = [],
): PackageArgs {
  const result: PackageArgs = { installs: [], skipped: [] };
  let tag: string | null = null;
  for (const arg of [...scanArgs(leading, SPECS[tool]), ...scanArgs(args, SPECS[tool])]) {
    if (arg.kind === 'positional') collect(result, arg.value, readNpmSpec(arg.value));
    else if (tool === 'npm' && arg.name === '--tag' && arg.value) tag = arg.value;
  }
  if (tag !== null) {
    for (const request of result.installs) request.version ??= tag;
  }
  return result;
}
