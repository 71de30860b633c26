import type { EcosystemDescriptor } from '../ecosystem-descriptor.js';
import { pypiCommands } from './commands.js';
import popular from './popular.json' with { type: 'json' };
import { createPypiRegistry, exactPypiVersion, normalizePypiName } from './registry.js';

/** PyPI and the Python installers (pip, pipx, poetry, pdm, uv). */
export const pypiEcosystem: EcosystemDescriptor<'PyPI'> = {
  id: 'PyPI',
  registryName: 'PyPI',
  urlKey: 'pypi',
  createRegistry: createPypiRegistry,
  commands: pypiCommands,
  otherRegistry: {
    options: ['-i', '--index-url', '--extra-index-url', '--index', '--default-index', '-f', '--find-links'],
    variables: ['PIP_INDEX_URL', 'PIP_EXTRA_INDEX_URL', 'UV_INDEX_URL', 'UV_DEFAULT_INDEX', 'UV_INDEX'],
  },
  osv: {
    ecosystem: 'PyPI',
    // OSV's PyPI data uses the PEP 503 name.
    packageName: normalizePypiName,
    // `==1.0`, `===1.0`, a bare `1.0`.
    exactVersion: exactPypiVersion,
  },
  names: { normalize: normalizePypiName, popular },
  samples: [
    { line: 'pip install requests==2.31.0', installs: [{ name: 'requests', version: '==2.31.0' }] },
    { line: 'pip3.11 install "flask[async]>=2,<3"', installs: [{ name: 'flask', version: '>=2,<3' }] },
    { line: 'pipx install black', installs: [{ name: 'black', version: null }] },
    { line: 'poetry add django@^5.0', installs: [{ name: 'django', version: '^5.0' }] },
    { line: 'pdm add httpx', installs: [{ name: 'httpx', version: null }] },
    { line: 'uv pip install numpy', installs: [{ name: 'numpy', version: null }] },
    { line: 'python3 -m pip install Pillow', installs: [{ name: 'Pillow', version: null }] },
  ],
};
