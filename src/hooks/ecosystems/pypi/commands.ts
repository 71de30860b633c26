/**
 * The Python installers on a command line (pip, pipx, poetry, pdm, uv) and the interpreters that run
 * them as modules. `pip3.11`, `pip-3.12`, `python3.12`, `pypy3`, `py -3.11`, `python -Im pip` are the
 * pip and python launchers; `python -m pipx|poetry|pdm|uv` counts like the tool itself. `poetry
 * install` and `pdm install` install the lockfile; `uv tool install` and `pipx inject` are not read.
 */
import { firstPositional, NOTHING_NAMED, type PackageArgs } from '../../arguments/options.js';
import type { InstallCommand } from '../ecosystem-descriptor.js';
import { type PythonTool, packagesFromArgs, pythonOptions } from './args.js';

const PIP = /^pip(?:-?\d+(?:\.\d+)*)?$/;
const PYTHON = /^(?:python|pypy)(?:\d+(?:\.\d+)*)?$|^py$/;

function readTool(tool: PythonTool, args: string[]): PackageArgs | null {
  const at = firstPositional(args, pythonOptions(tool));
  if (at === -1) return null;
  const sub = args[at];
  if (sub !== 'install' && sub !== 'add') return null;
  // `poetry install` / `pdm install` install the lock file; they take no package names.
  if ((tool === 'poetry' || tool === 'pdm') && sub === 'install') return NOTHING_NAMED;
  return packagesFromArgs(args.slice(at + 1), tool);
}

/** `uv add x` and `uv pip install x`. */
function readUv(args: string[]): PackageArgs | null {
  const spec = pythonOptions('uv');
  const at = firstPositional(args, spec);
  if (at === -1) return null;
  if (args[at] === 'add') return packagesFromArgs(args.slice(at + 1), 'uv');
  if (args[at] !== 'pip') return null;
  const rest = args.slice(at + 1);
  const sub = firstPositional(rest, spec);
  return sub !== -1 && rest[sub] === 'install' ? packagesFromArgs(rest.slice(sub + 1), 'uv') : null;
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

const pip: InstallCommand = {
  tool: 'pip',
  executables: ['pip', 'pip3'],
  pattern: PIP,
  installs: ['install'],
  read: (args) => readTool('pip', args),
};
const uv: InstallCommand = {
  tool: 'uv',
  executables: ['uv'],
  installs: ['add', 'pip install'],
  read: readUv,
};

/** The tools `python -m X` runs, by module name. */
const MODULES = new Map<string, (args: string[]) => PackageArgs | null>([
  ['pip', pip.read],
  ['pip3', pip.read],
  ['pipx', (args) => readTool('pipx', args)],
  ['poetry', (args) => readTool('poetry', args)],
  ['pdm', (args) => readTool('pdm', args)],
  ['uv', readUv],
]);

export const pypiCommands: readonly InstallCommand[] = [
  pip,
  { tool: 'pipx', executables: ['pipx'], installs: ['install'], read: (args) => readTool('pipx', args) },
  ...(['poetry', 'pdm'] as const).map(
    (tool): InstallCommand => ({
      tool,
      executables: [tool],
      installs: ['add', 'install'],
      read: (args) => readTool(tool, args),
    }),
  ),
  uv,
  {
    tool: 'python -m',
    executables: ['python', 'python3', 'py', 'pypy', 'pypy3'],
    pattern: PYTHON,
    installs: ['-m pip install', '-m pipx install', '-m poetry add', '-m pdm add', '-m uv pip install'],
    read(args) {
      const module = pythonModule(args);
      if (module === null) return null;
      return MODULES.get(module[0]!.toLowerCase())?.(module.slice(1)) ?? null;
    },
  },
];
