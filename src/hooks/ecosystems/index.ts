import type { Ecosystem, RegistryClient } from '../types.js';
import { createCratesRegistry } from './cargo/registry.js';
import { createGoRegistry } from './go/registry.js';
import { createNpmRegistry } from './npm/registry.js';
import { createNugetRegistry } from './nuget/registry.js';
import { createPypiRegistry } from './pypi/registry.js';

export { createCratesRegistry, createGoRegistry, createNpmRegistry, createNugetRegistry, createPypiRegistry };

/** The configured registry base URLs (contract 3; `Config.registries` without `osv`). */
export interface RegistryUrls {
  npm: string;
  pypi: string;
  crates: string;
  goproxy: string;
  nuget: string;
}

/** One client per ecosystem, keyed as OSV spells the ecosystems. */
export function createRegistries(
  urls: RegistryUrls,
  options: { fetch?: typeof fetch } = {},
): Record<Ecosystem, RegistryClient> {
  const f = options.fetch;
  return {
    npm: createNpmRegistry({ baseUrl: urls.npm, fetch: f }),
    PyPI: createPypiRegistry({ baseUrl: urls.pypi, fetch: f }),
    'crates.io': createCratesRegistry({ baseUrl: urls.crates, fetch: f }),
    Go: createGoRegistry({ baseUrl: urls.goproxy, fetch: f }),
    NuGet: createNugetRegistry({ baseUrl: urls.nuget, fetch: f }),
  };
}

// ---------------------------------------------------------------------------------------------------
// The one HTTP exchange every registry client (and the OSV lookup) makes. It lives here because the
// clients may only share this module; they import it back (a cycle that is safe: nothing here runs at
// import time).

/** What every client factory takes. */

export * from './fetch.js';
