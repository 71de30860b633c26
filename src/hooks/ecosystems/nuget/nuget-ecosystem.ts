import type { EcosystemDescriptor } from '../ecosystem-descriptor.js';
import { nugetCommands } from './commands.js';
import popular from './popular.json' with { type: 'json' };
import { createNugetRegistry, parseNugetVersion } from './registry.js';

/** NuGet and `dotnet add package`. */
export const nugetEcosystem: EcosystemDescriptor<'NuGet'> = {
  id: 'NuGet',
  registryName: 'NuGet',
  urlKey: 'nuget',
  createRegistry: createNugetRegistry,
  commands: nugetCommands,
  otherRegistry: { options: ['-s', '--source'], variables: [] },
  osv: {
    ecosystem: 'NuGet',
    packageName: (name) => name.trim(),
    // A plain version (`1.2.3`, `1.0.0-beta`), not a floating version or an interval.
    exactVersion: (version) => (parseNugetVersion(version) !== null ? version : null),
  },
  // Package IDs are case-insensitive.
  names: { normalize: (name) => name.trim().toLowerCase(), popular },
  samples: [
    {
      line: 'dotnet add package Newtonsoft.Json --version 13.0.3',
      installs: [{ name: 'Newtonsoft.Json', version: '13.0.3' }],
    },
    { line: 'dotnet package add Serilog@4.0.0', installs: [{ name: 'Serilog', version: '4.0.0' }] },
  ],
};
