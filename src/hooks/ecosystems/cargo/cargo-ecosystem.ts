import type { EcosystemDescriptor } from '../ecosystem-descriptor.js';
import { parseSemver } from '../semver.js';
import { cargoCommands } from './commands.js';
import popular from './popular.json' with { type: 'json' };
import { createCratesRegistry } from './registry.js';

/** crates.io and `cargo add`. */
export const cargoEcosystem: EcosystemDescriptor<'crates.io'> = {
  id: 'crates.io',
  registryName: 'crates.io',
  urlKey: 'crates',
  createRegistry: createCratesRegistry,
  commands: cargoCommands,
  otherRegistry: { options: ['--registry', '--index'], variables: ['CARGO_REGISTRY_DEFAULT'] },
  osv: {
    ecosystem: 'crates.io',
    packageName: (name) => name.trim(),
    // `=1.2.3` or a full `1.2.3` (what `cargo install foo@1.2.3` installs).
    exactVersion(version) {
      const v = version.replace(/^=\s*/, '');
      return /^\d/.test(v) && parseSemver(v) !== null ? v : null;
    },
  },
  // crates.io treats `-` and `_` as the same character, and ignores case.
  names: { normalize: (name) => name.trim().toLowerCase().replace(/-/g, '_'), popular },
  samples: [
    { line: 'cargo add serde@1.0', installs: [{ name: 'serde', version: '1.0' }] },
    { line: 'cargo +nightly add tokio -F full', installs: [{ name: 'tokio', version: null }] },
  ],
};
