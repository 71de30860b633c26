import type { EcosystemDescriptor } from '../ecosystem-descriptor.js';
import { parseSemver } from '../semver.js';
import { npmCommands } from './commands.js';
import { npmConfusions, npmPublisher } from './names.js';
import popular from './popular.json' with { type: 'json' };
import { createNpmRegistry } from './registry.js';

/** npm and the tools that install from its registry (yarn, pnpm, bun). */
export const npmEcosystem: EcosystemDescriptor<'npm'> = {
  id: 'npm',
  registryName: 'npm',
  urlKey: 'npm',
  createRegistry: createNpmRegistry,
  commands: npmCommands,
  otherRegistry: {
    options: ['--registry'],
    variables: ['npm_config_registry', 'NPM_CONFIG_REGISTRY'],
    optionPattern: /^--@[^:]+:registry/,
  },
  osv: {
    ecosystem: 'npm',
    packageName: (name) => name.trim(),
    // `1.2.3`, `=1.2.3`, `v1.2.3`: one exact version.
    exactVersion(version) {
      const v = version.replace(/^=?v?/, '');
      return parseSemver(v) !== null ? v : null;
    },
  },
  names: {
    normalize: (name) => name.trim().toLowerCase(),
    popular,
    caseSensitive: true,
    publisher: npmPublisher,
    confusions: npmConfusions,
  },
  samples: [
    { line: 'npm install lodash@^4.17.0', installs: [{ name: 'lodash', version: '^4.17.0' }] },
    { line: 'npm ci', installs: [] },
    { line: 'yarn global add @babel/core@7', installs: [{ name: '@babel/core', version: '7' }] },
    { line: 'pnpm add -D typescript', installs: [{ name: 'typescript', version: null }] },
    { line: 'bun add react', installs: [{ name: 'react', version: null }] },
  ],
};
