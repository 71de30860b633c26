/**
 * The ecosystems the hooks know, each one descriptor in its own folder. This list is the one place an
 * ecosystem is added (docs/adding-an-ecosystem.md); its order is the order registries are built in.
 */
import type { RegistryClient } from '../types.js';
import { cargoEcosystem } from './cargo/cargo-ecosystem.js';
import type { EcosystemDescriptor } from './ecosystem-descriptor.js';
import { goEcosystem } from './go/go-ecosystem.js';
import { npmEcosystem } from './npm/npm-ecosystem.js';
import { nugetEcosystem } from './nuget/nuget-ecosystem.js';
import { pypiEcosystem } from './pypi/pypi-ecosystem.js';

export type { EcosystemDescriptor } from './ecosystem-descriptor.js';

export const ECOSYSTEMS = [npmEcosystem, pypiEcosystem, cargoEcosystem, goEcosystem, nugetEcosystem] as const;

/** An ecosystem's id: OSV's spelling of its name (`npm`, `PyPI`, `crates.io`, `Go`, `NuGet`). */
export type Ecosystem = (typeof ECOSYSTEMS)[number]['id'];

const BY_ID = new Map<string, EcosystemDescriptor>(ECOSYSTEMS.map((e) => [e.id, e]));

/** The descriptor of an ecosystem; throws on a name that is none (a bug: ids come from descriptors). */
export function ecosystemById(id: Ecosystem): EcosystemDescriptor {
  const descriptor = BY_ID.get(id);
  if (descriptor === undefined) throw new Error(`unknown ecosystem: ${String(id)}`);
  return descriptor;
}

/** One client per ecosystem, keyed by its id, each at its configured base URL (`Config.registries`). */
export function createRegistries(
  urls: Readonly<Record<string, string>>,
  options: { fetch?: typeof fetch } = {},
): Record<Ecosystem, RegistryClient> {
  const clients = {} as Record<Ecosystem, RegistryClient>;
  for (const ecosystem of ECOSYSTEMS) {
    const baseUrl = urls[ecosystem.urlKey];
    if (baseUrl === undefined) throw new Error(`no registry URL configured for ${ecosystem.id}`);
    clients[ecosystem.id] = ecosystem.createRegistry({ baseUrl, fetch: options.fetch });
  }
  return clients;
}
