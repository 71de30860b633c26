/**
 * The npm-family tools on a command line (npm, cnpm, yarn, pnpm, bun) and their install
 * sub-commands. A lockfile install (`npm ci`) is an install naming no package; bare `yarn` is not an
 * install. `npx`, `pnpm dlx` and `bunx` run a package without installing it into the project and are
 * not read.
 */
import { firstPositional, NOTHING_NAMED, type PackageArgs } from '../../arguments/options.js';
import type { InstallCommand } from '../ecosystem-descriptor.js';
import { type NpmTool, npmOptions, packagesFromArgs } from './args.js';

/** npm's own spellings of `install` (its alias list, typos included) and `install-test`. */
const NPM_INSTALL = [
  ...['install', 'i', 'add', 'in', 'ins', 'inst', 'insta', 'instal'],
  ...['isnt', 'isnta', 'isntal', 'isntall', 'install-test', 'it'],
];
/** npm's lockfile installs (`npm ci` and its aliases). */
const NPM_LOCKFILE = [
  ...['ci', 'clean-install', 'ic', 'install-clean', 'isntall-clean'],
  ...['install-ci-test', 'cit', 'clean-install-test', 'sit'],
];

const INSTALL: Record<NpmTool, readonly string[]> = {
  npm: NPM_INSTALL,
  yarn: ['add', 'install', 'i'],
  pnpm: ['add', 'install', 'i'],
  bun: ['add', 'a', 'install', 'i'],
};
const INSTALL_SETS: Record<NpmTool, ReadonlySet<string>> = {
  npm: new Set(INSTALL.npm),
  yarn: new Set(INSTALL.yarn),
  pnpm: new Set(INSTALL.pnpm),
  bun: new Set(INSTALL.bun),
};
const LOCKFILE = new Set(NPM_LOCKFILE);

function readNpmFamily(tool: NpmTool, args: string[]): PackageArgs | null {
  const spec = npmOptions(tool);
  let rest = args;
  for (let hop = 0; hop < 3; hop++) {
    const at = firstPositional(rest, spec);
    if (at === -1) return null; // bare `yarn`, `npm --version`
    const sub = rest[at]!;
    if (INSTALL_SETS[tool].has(sub)) return packagesFromArgs(rest.slice(at + 1), tool, rest.slice(0, at));
    if (tool === 'npm' && LOCKFILE.has(sub)) return NOTHING_NAMED;
    if (tool === 'yarn' && sub === 'global') {
      rest = rest.slice(at + 1); // `yarn global add x`
    } else if (tool === 'yarn' && sub === 'workspace') {
      rest = rest.slice(at + 2); // `yarn workspace <name> add x`
    } else {
      return null;
    }
  }
  return null;
}

function family(tool: NpmTool, executables: string[], installs: readonly string[]): InstallCommand {
  return { tool, executables, installs, read: (args) => readNpmFamily(tool, args) };
}

export const npmCommands: readonly InstallCommand[] = [
  family('npm', ['npm', 'cnpm'], [...NPM_INSTALL, ...NPM_LOCKFILE]),
  family('yarn', ['yarn', 'yarnpkg'], [...INSTALL.yarn, 'global add', 'workspace app add']),
  family('pnpm', ['pnpm'], INSTALL.pnpm),
  family('bun', ['bun'], INSTALL.bun),
];
