/** `go get` and `go install`. `go run pkg@version` runs without installing and is not read. */
import { firstPositional } from '../../arguments/options.js';
import type { InstallCommand } from '../ecosystem-descriptor.js';
import { goOptions, packagesFromArgs } from './args.js';

export const goCommands: readonly InstallCommand[] = [
  {
    tool: 'go',
    executables: ['go'],
    installs: ['get', 'install'],
    read(args) {
      const at = firstPositional(args, goOptions());
      const sub = at === -1 ? undefined : args[at];
      return sub === 'get' || sub === 'install' ? packagesFromArgs(args.slice(at + 1)) : null;
    },
  },
];
