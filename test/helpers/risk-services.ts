import type { SharedCache } from '../../src/hooks/cache.js';
import { ECOSYSTEMS, type Ecosystem } from '../../src/hooks/ecosystems/index.js';
import type { RiskServices } from '../../src/hooks/risk/assess.js';
import {
  type MalwareLookup,
  type RegistryClient,
  type RegistryFacts,
  RegistryUnavailable,
} from '../../src/hooks/types.js';

/**
 * The risk rules' services in memory, for tests of the rules and the decision on their own: each
 * registry answers from a table (a name it lacks does not exist), OSV from another, with a fixed
 * clock. The registry clients, OSV and the caches have their own tests against fake servers.
 */
export const NOW = new Date('2026-06-15T12:00:00Z');
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const ago = (ms: number) => new Date(NOW.getTime() - ms);
export const OLD = ago(1000 * DAY);

/** A registry's answer: facts, a failure, or never (only the signal ends the wait). */
export type Answer = RegistryFacts | RegistryUnavailable | 'hang';

export function facts(partial: Partial<RegistryFacts> = {}): RegistryFacts {
  return { exists: true, firstPublished: OLD, resolvedVersion: '1.0.0', versionPublished: OLD, ...partial };
}

export class MemoryCache implements SharedCache {
  readonly entries = new Map<string, { value: string; ttl: number }>();
  async get(key: string) {
    return this.entries.get(key)?.value ?? null;
  }
  async set(key: string, value: string, ttl: number) {
    this.entries.set(key, { value, ttl });
  }
}

export function memoryRiskServices(
  answers: Record<string, Answer>,
  malware: Record<string, string[] | RegistryUnavailable> = {},
  cache = new MemoryCache(),
) {
  const asked: string[] = [];
  // Never answers: only the signal ends the wait (at once if it has already fired).
  const wait = (signal: AbortSignal) =>
    new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason));
    });
  const registry = (ecosystem: Ecosystem): RegistryClient => ({
    ecosystem,
    async lookup(name, version, signal) {
      asked.push(`${ecosystem} ${name} ${version}`);
      const answer = answers[name] ?? facts({ exists: false, firstPublished: null, resolvedVersion: null });
      if (answer === 'hang') return wait(signal);
      if (answer instanceof RegistryUnavailable) throw answer;
      return answer;
    },
  });
  const osv: MalwareLookup = {
    async maliciousAdvisories(ecosystem, name, version) {
      asked.push(`OSV ${ecosystem} ${name} ${version}`);
      const answer = malware[name] ?? [];
      if (answer instanceof RegistryUnavailable) throw answer;
      return answer;
    },
  };
  const registries = Object.fromEntries(ECOSYSTEMS.map((e) => [e.id, registry(e.id)])) as Record<
    Ecosystem,
    RegistryClient
  >;
  const risk: RiskServices = { registries, osv, cache, now: () => NOW };
  return { risk, asked, cache };
}
