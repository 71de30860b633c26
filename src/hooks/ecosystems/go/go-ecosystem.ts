import type { EcosystemDescriptor } from '../ecosystem-descriptor.js';
import { goCommands } from './commands.js';
import { enclosingModules, goConfusions, goNamespace, normalizeGoPath } from './names.js';
import popular from './popular.json' with { type: 'json' };
import { CANONICAL_GO_VERSION, createGoRegistry } from './registry.js';

/** Go modules, from a module proxy, and `go get` / `go install`. */
export const goEcosystem: EcosystemDescriptor<'Go'> = {
  id: 'Go',
  registryName: 'the Go module proxy',
  urlKey: 'goproxy',
  createRegistry: createGoRegistry,
  commands: goCommands,
  otherRegistry: { options: [], variables: ['GOPROXY', 'GOPRIVATE', 'GONOPROXY', 'GOFLAGS'] },
  osv: {
    ecosystem: 'Go',
    packageName: (name) => name.trim(),
    // A full version, `v` dropped (`v1.2.3` → `1.2.3`, as OSV's Go data spells them).
    exactVersion: (version) => (CANONICAL_GO_VERSION.test(version) ? version.slice(1) : null),
  },
  names: {
    normalize: normalizeGoPath,
    popular,
    judgedForms: enclosingModules,
    publisher: goNamespace,
    confusions: goConfusions,
  },
  samples: [
    {
      line: 'go get github.com/gin-gonic/gin@v1.9.1',
      installs: [{ name: 'github.com/gin-gonic/gin', version: 'v1.9.1' }],
    },
    {
      line: 'go install golang.org/x/tools/cmd/stringer@latest',
      installs: [{ name: 'golang.org/x/tools/cmd/stringer', version: 'latest' }],
    },
  ],
};
