/** `dotnet add [PROJECT] package ID ...` and .NET 10's `dotnet package add ID ...`. */
import { firstPositional, type PackageArgs } from '../../arguments/options.js';
import type { InstallCommand } from '../ecosystem-descriptor.js';
import { nugetOptions, packagesFromArgs } from './args.js';

function readDotnet(args: string[]): PackageArgs | null {
  const spec = nugetOptions();
  const at = firstPositional(args, spec);
  if (at === -1) return null;
  const rest = args.slice(at + 1);
  const next = firstPositional(rest, spec);
  if (next === -1) return null;
  if (args[at] === 'package') return rest[next] === 'add' ? packagesFromArgs(rest.slice(next + 1)) : null;
  if (args[at] !== 'add') return null;
  if (rest[next] === 'package') return packagesFromArgs(rest.slice(next + 1));
  const afterProject = rest.slice(next + 1); // `dotnet add App.csproj package X`
  const sub = firstPositional(afterProject, spec);
  return sub !== -1 && afterProject[sub] === 'package' ? packagesFromArgs(afterProject.slice(sub + 1)) : null;
}

export const nugetCommands: readonly InstallCommand[] = [
  {
    tool: 'dotnet',
    executables: ['dotnet'],
    installs: ['add package', 'add App.csproj package', 'package add'],
    read: readDotnet,
  },
];
