/** `cargo add` (with a toolchain first: `cargo +nightly add x`). `cargo install` builds a binary and is not read. */
import { firstPositional } from '../../arguments/options.js';
import type { InstallCommand } from '../ecosystem-descriptor.js';
import { cargoOptions, packagesFromArgs } from './args.js';

export const cargoCommands: readonly InstallCommand[] = [
  {
    tool: 'cargo',
    executables: ['cargo'],
    installs: ['add'],
    read(args) {
      let from = 0;
      while (args[from]?.startsWith('+')) from++;
      const rest = args.slice(from);
      const at = firstPositional(rest, cargoOptions());
      return at !== -1 && rest[at] === 'add' ? packagesFromArgs(rest.slice(at + 1)) : null;
    },
  },
];
