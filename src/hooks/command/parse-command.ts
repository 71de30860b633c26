/**
 * The install-command parser (spec 4.3): which packages would a shell line install?
 *
 * The line is split into simple commands (`;`, `&&`, `||`, `|`, `&`, newlines, subshells; never
 * inside quotes), each is unwrapped (`sudo`, `VAR=value`, `env`, `time`...) and matched against the
 * recognized install commands; the arguments of a match are read by the ecosystem's args module.
 * `sh -c`/`bash -c` scripts, `eval`, `cmd /c` and `powershell -Command` are read as command lines
 * too. Nothing throws: on any input the answer is what could be read.
 *
 * Choices where the spec is silent:
 * - A recognized install command naming no package (`npm install`, `npm ci`, `poetry install`,
 *   `xargs npm install`) is an install (`isInstall`) with nothing to check: the lockfile or the
 *   piped list is not read. Bare `yarn` is not in the spec's table and is not an install.
 * - npm's own aliases of install count (`in`, `isntall`, `install-test`...); bun's `a` too;
 *   `yarn global add` and `yarn workspace <ws> add` are `add`; .NET 10's `dotnet package add` is
 *   `dotnet add package`. `cargo install`, `uv tool install`, `pipx inject`, `go run`, `npx`,
 *   `pnpm dlx`, `bunx` are not in the table and are not installs.
 * - `pip3.11`, `pip-3.12`, `python3.12`, `pypy3`, `py -3.11`, `python -Im pip` are the pip and python
 *   launchers; `python -m pipx|poetry|pdm|uv` count like the tools themselves.
 * - The same package (ecosystem, name, version) named twice is listed once; skipped specs are listed
 *   up to MAX_SKIPPED, then counted.
 * - Registry options (`--registry`, `-i`, `--index-url`, cargo `--registry`) do not change what is
 *   listed: the packages are named as if from the public registry, the risk rules decide.
 */

import { cargoOptions, packagesFromArgs as cargoPackages } from '../ecosystems/cargo/args.js';
import { goOptions, packagesFromArgs as goPackages } from '../ecosystems/go/args.js';
import { type NpmTool, npmOptions, packagesFromArgs as npmPackages } from '../ecosystems/npm/args.js';
import { nugetOptions, packagesFromArgs as nugetPackages } from '../ecosystems/nuget/args.js';
import {
  type PythonTool,
  pythonOptions,
  packagesFromArgs as pythonPackages,
} from '../ecosystems/pypi/args.js';
import {
  type Ecosystem,
  MAX_PACKAGES,
  type PackageRequest,
  type ParsedCommand,
  type SkippedSpec,
} from '../types.js';
import { firstPositional, type PackageArgs } from './options.js';
import { simpleCommands } from './tokenize.js';
import { executableName, unwrap } from './wrappers.js';

/** Skipped specs listed per command; beyond it one entry says how many more there were. */
export const MAX_SKIPPED = 20;

/** How deep `bash -c "..."` / `eval` scripts are followed. */
const MAX_DEPTH = 4;

/** Lockfile installs: no package named, nothing to check (the lockfile was reviewed with the code). */
const NOTHING: PackageArgs = Object.freeze({ installs: [], skipped: [] }) as PackageArgs;

/** npm's own spellings of `install` (its alias list, typos included) and `install-test`. */
const NPM_INSTALL = new Set([
  ...['install', 'i', 'add', 'in', 'ins', 'inst', 'insta', 'instal'],
  ...['isnt', 'isnta', 'isntal', 'isntall', 'install-test', 'it'],
]);
/** npm's lockfile installs (`npm ci` and its aliases). */
const NPM_LOCKFILE = new Set([
  ...['ci', 'clean-install', 'ic', 'install-clean', 'isntall-clean'],
  ...['install-ci-test', 'cit', 'clean-install-test', 'sit'],
]);

const INSTALL: Record<NpmTool, ReadonlySet<string>> = {
  npm: NPM_INSTALL,
  yarn: new Set(['add', 'install', 'i']),
  pnpm: new Set(['add', 'install', 'i']),
  bun: new Set(['add', 'a', 'install', 'i']),
};

const NPM_TOOLS = new Map<string, NpmTool>([
  ['npm', 'npm'],
  ['cnpm', 'npm'],
  ['yarn', 'yarn'],
  ['yarnpkg', 'yarn'],
  ['pnpm', 'pnpm'],
  ['bun', 'bun'],
]);

const PYTHON_TOOLS = new Map<string, PythonTool>([
  ['pipx', 'pipx'],
  ['poetry', 'poetry'],
  ['pdm', 'pdm'],
]);

const PIP = /^pip(?:-?\d+(?:\.\d+)*)?$/;
const PYTHON = /^(?:python|pypy)(?:\d+(?:\.\d+)*)?$|^py$/;
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish']);
/** Modules that `python -m X` runs as the tool X. */
const PYTHON_MODULES = new Set(['pip', 'pip3', 'pipx', 'poetry', 'pdm', 'uv']);

function npmFamily(tool: NpmTool, args: string[]): PackageArgs | null {
  const spec = npmOptions(tool);
  let rest = args;
  for (let hop = 0; hop < 3; hop++) {
    const at = firstPositional(rest, spec);
    if (at === -1) return null; // bare `yarn`, `npm --version`
    const sub = rest[at]!;
    if (INSTALL[tool].has(sub)) return npmPackages(rest.slice(at + 1), tool);
    if (tool === 'npm' && NPM_LOCKFILE.has(sub)) return NOTHING;
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

function pythonFamily(tool: PythonTool, args: string[]): PackageArgs | null {
  const at = firstPositional(args, pythonOptions(tool));
  if (at === -1) return null;
  const sub = args[at];
  if (sub !== 'install' && sub !== 'add') return null;
  // `poetry install` / `pdm install` install the lock file; they take no package names.
  if ((tool === 'poetry' || tool === 'pdm') && sub === 'install') return NOTHING;
  return pythonPackages(args.slice(at + 1), tool);
}

function uv(args: string[]): PackageArgs | null {
  const spec = pythonOptions('uv');
  const at = firstPositional(args, spec);
  if (at === -1) return null;
  if (args[at] === 'add') return pythonPackages(args.slice(at + 1), 'uv');
  if (args[at] !== 'pip') return null;
  const rest = args.slice(at + 1);
  const sub = firstPositional(rest, spec);
  return sub !== -1 && rest[sub] === 'install' ? pythonPackages(rest.slice(sub + 1), 'uv') : null;
}

/** `python [-I -X opt ...] -m pip ...`: the module and its arguments, or null. */
function pythonModule(args: string[]): string[] | null {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word.length < 2 || !word.startsWith('-') || word === '--') return null; // a script, stdin
    if (word.startsWith('--')) {
      if (word === '--check-hash-based-pycs') i++;
      continue;
    }
    for (let j = 1; j < word.length; j++) {
      const c = word[j]!;
      if (c === 'm') {
        const attached = word.slice(j + 1);
        if (attached !== '') return [attached, ...args.slice(i + 1)];
        return i + 1 < args.length ? args.slice(i + 1) : null;
      }
      if (c === 'c') return null; // python code, not a module
      if (c === 'X' || c === 'W') {
        if (j === word.length - 1) i++;
        break;
      }
    }
  }
  return null;
}

function packageCommand(name: string, args: string[]): PackageArgs | null {
  const npmTool = NPM_TOOLS.get(name);
  if (npmTool !== undefined) return npmFamily(npmTool, args);
  if (PIP.test(name)) return pythonFamily('pip', args);
  const pythonTool = PYTHON_TOOLS.get(name);
  if (pythonTool !== undefined) return pythonFamily(pythonTool, args);
  if (name === 'uv') return uv(args);
  if (PYTHON.test(name)) {
    const module = pythonModule(args);
    if (module === null) return null;
    const moduleName = module[0]!.toLowerCase();
    return PYTHON_MODULES.has(moduleName) ? packageCommand(moduleName, module.slice(1)) : null;
  }
  if (name === 'cargo') {
    let from = 0;
    while (args[from]?.startsWith('+')) from++; // `cargo +nightly add x`
    const rest = args.slice(from);
    const at = firstPositional(rest, cargoOptions());
    return at !== -1 && rest[at] === 'add' ? cargoPackages(rest.slice(at + 1)) : null;
  }
  if (name === 'go') {
    const at = firstPositional(args, goOptions());
    const sub = at === -1 ? undefined : args[at];
    return sub === 'get' || sub === 'install' ? goPackages(args.slice(at + 1)) : null;
  }
  if (name === 'dotnet') return dotnet(args);
  return null;
}

/** `dotnet add [PROJECT] package ID ...` and `dotnet package add ID ...`. */
function dotnet(args: string[]): PackageArgs | null {
  const spec = nugetOptions();
  const at = firstPositional(args, spec);
  if (at === -1) return null;
  const rest = args.slice(at + 1);
  const next = firstPositional(rest, spec);
  if (next === -1) return null;
  if (args[at] === 'package') return rest[next] === 'add' ? nugetPackages(rest.slice(next + 1)) : null;
  if (args[at] !== 'add') return null;
  if (rest[next] === 'package') return nugetPackages(rest.slice(next + 1));
  const afterProject = rest.slice(next + 1); // `dotnet add App.csproj package X`
  const sub = firstPositional(afterProject, spec);
  return sub !== -1 && afterProject[sub] === 'package' ? nugetPackages(afterProject.slice(sub + 1)) : null;
}

/** The script of `bash -c SCRIPT`, `sh -lc SCRIPT`, `fish --command=SCRIPT`; null for a script file. */
function shellScript(args: string[]): string | null {
  let command = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === '--' || word === '-') {
      return command && i + 1 < args.length ? args[i + 1]! : null;
    }
    if (word.startsWith('--')) {
      if (word.startsWith('--command=')) return word.slice('--command='.length);
      if (word === '--command') command = true;
      else if (word === '--rcfile' || word === '--init-file') i++;
      continue;
    }
    if (word.startsWith('-') || word.startsWith('+')) {
      const letters = word.slice(1);
      if (letters.includes('c')) command = true;
      if (letters.includes('o') || letters.includes('O')) i++; // `-o pipefail`
      continue;
    }
    return command ? word : null;
  }
  return null;
}

const POWERSHELL_VALUES = new Set([
  ...['-executionpolicy', '-ep', '-ex', '-windowstyle', '-w', '-workingdirectory', '-wd'],
  ...['-configurationname', '-inputformat', '-if', '-outputformat', '-of', '-settingsfile', '-version'],
]);

/** `powershell [-NoProfile ...] [-Command] TEXT...` and `cmd [/s /q] /c TEXT...`: the command text. */
function windowsShellScript(name: string, args: string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!.toLowerCase();
    if (name === 'cmd') {
      if (word === '/c' || word === '/k') return args.slice(i + 1).join(' ');
      if (word.startsWith('/c') || word.startsWith('/k'))
        return [args[i]!.slice(2), ...args.slice(i + 1)].join(' ');
      if (word.startsWith('/')) continue;
      return null;
    }
    if (word === '-command' || word === '-c' || word === '/command' || word === '-commandwithargs') {
      return args.slice(i + 1).join(' ');
    }
    if (word === '-file' || word === '-f' || word === '-encodedcommand' || word === '-e' || word === '-ec') {
      return null;
    }
    if (POWERSHELL_VALUES.has(word)) {
      i++;
      continue;
    }
    if (word.startsWith('-')) continue;
    return args.slice(i).join(' ');
  }
  return null;
}

/** Options and variables that point an install at a registry other than the public one. */
const OTHER_REGISTRY: Record<Ecosystem, { options: readonly string[]; variables: readonly string[] }> = {
  npm: { options: ['--registry'], variables: ['npm_config_registry', 'NPM_CONFIG_REGISTRY'] },
  PyPI: {
    options: ['-i', '--index-url', '--extra-index-url', '--index', '--default-index', '-f', '--find-links'],
    variables: ['PIP_INDEX_URL', 'PIP_EXTRA_INDEX_URL', 'UV_INDEX_URL', 'UV_DEFAULT_INDEX', 'UV_INDEX'],
  },
  'crates.io': { options: ['--registry', '--index'], variables: ['CARGO_REGISTRY_DEFAULT'] },
  Go: { options: [], variables: ['GOPROXY', 'GOPRIVATE', 'GONOPROXY', 'GOFLAGS'] },
  NuGet: { options: ['-s', '--source'], variables: [] },
};

/** Whether the command (its leading assignments or its options) names another registry. */
function namesOtherRegistry(
  ecosystem: Ecosystem,
  words: readonly string[],
  args: readonly string[],
): boolean {
  const { options, variables } = OTHER_REGISTRY[ecosystem];
  const assigns = words.some((w) => variables.some((v) => w.startsWith(`${v}=`)));
  const names = args.some(
    (a) =>
      options.some((o) => a === o || a.startsWith(`${o}=`)) ||
      (ecosystem === 'npm' && /^--@[^:]+:registry/.test(a)),
  );
  return assigns || names;
}

interface Reading {
  installs: PackageRequest[];
  skipped: SkippedSpec[];
  isInstall: boolean;
}

function readCommand(words: string[], into: Reading, depth: number): void {
  const command = unwrap(words);
  if (command === null || command.length === 0) return;
  const name = executableName(command[0]!);
  const args = command.slice(1);
  let script: string | null = null;
  if (SHELLS.has(name)) script = shellScript(args);
  else if (name === 'eval') script = args.join(' ');
  else if (name === 'cmd' || name === 'powershell' || name === 'pwsh')
    script = windowsShellScript(name, args);
  if (script !== null) {
    if (depth < MAX_DEPTH) readLine(script, into, depth + 1);
    return;
  }
  const found = packageCommand(name, args);
  if (found === null) return;
  into.isInstall = true;
  // Once per ecosystem, not per package: a line may name thousands of packages.
  const other = new Map<Ecosystem, boolean>();
  for (const request of found.installs) {
    let custom = other.get(request.ecosystem);
    if (custom === undefined) {
      custom = namesOtherRegistry(request.ecosystem, words, args);
      other.set(request.ecosystem, custom);
    }
    if (custom) request.customRegistry = true;
  }
  into.installs.push(...found.installs);
  into.skipped.push(...found.skipped);
}

function readLine(line: string, into: Reading, depth: number): void {
  for (const words of simpleCommands(line)) {
    try {
      readCommand(words, into, depth);
    } catch {
      // One unreadable command does not hide the others.
    }
  }
}

function plural(n: number, word: string): string {
  return `${n} more ${word}${n === 1 ? '' : 's'}`;
}

/** Removes repeats, keeps the first MAX_PACKAGES packages and says how many were left out. */
function finish(reading: Reading): ParsedCommand {
  const seen = new Set<string>();
  const unique: PackageRequest[] = [];
  for (const r of reading.installs) {
    const key = JSON.stringify([r.ecosystem, r.name, r.version]);
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(r);
  }
  const seenSkips = new Set<string>();
  const skips: SkippedSpec[] = [];
  for (const s of reading.skipped) {
    const key = JSON.stringify([s.spec, s.why]);
    if (seenSkips.has(key)) continue;
    seenSkips.add(key);
    skips.push(s);
  }
  const skipped = skips.slice(0, MAX_SKIPPED);
  if (skips.length > MAX_SKIPPED) {
    skipped.push({ spec: plural(skips.length - MAX_SKIPPED, 'argument'), why: 'not checked, not listed' });
  }
  if (unique.length > MAX_PACKAGES) {
    skipped.push({
      spec: plural(unique.length - MAX_PACKAGES, 'package'),
      why: `not checked: at most ${MAX_PACKAGES} packages are checked per command`,
    });
  }
  return { installs: unique.slice(0, MAX_PACKAGES), skipped, isInstall: reading.isInstall };
}

/** The packages a shell command line would install (spec 4.3). Never throws. */
export function parseCommandLine(line: string): ParsedCommand {
  const reading: Reading = { installs: [], skipped: [], isInstall: false };
  try {
    if (typeof line === 'string') readLine(line, reading, 0);
  } catch {
    // Keep what was read before the failure.
  }
  try {
    return finish(reading);
  } catch {
    return { installs: [], skipped: [], isInstall: reading.isInstall };
  }
}
