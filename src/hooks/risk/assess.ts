import type { SharedCache } from '../cache.js';
import { ecosystemById } from '../ecosystems/index.js';
import {
  type Ecosystem,
  type MalwareLookup,
  type PackageRequest,
  type RegistryClient,
  type RegistryFacts,
  RegistryUnavailable,
} from '../types.js';
import { describeTyposquat, findTyposquat } from './typosquat.js';

/** A package first published this recently, or a version this fresh, is risky. */
export const NEW_PACKAGE_DAYS = 7;
export const FRESH_VERSION_HOURS = 48;

/** How long answers are kept: a missing name is re-asked sooner, since it may be published any time. */
const TTL_SECONDS = { facts: 3600, missing: 600, malware: 3600 };

export interface RiskServices {
  registries: Record<Ecosystem, RegistryClient>;
  osv: MalwareLookup;
  cache: SharedCache;
  now: () => Date;
}

export interface Verdict {
  request: PackageRequest;
  risky: boolean;
  /** Every reason it is risky, spelled out for the user and the agent. */
  reasons: string[];
  /** Why it could not be fully judged (a registry that did not answer in time), or null. */
  unjudged: string | null;
}

/** Judges every package at once; `signal` ends whatever is still waiting on a registry. */
export function assessPackages(
  requests: readonly PackageRequest[],
  services: RiskServices,
  signal: AbortSignal,
): Promise<Verdict[]> {
  return Promise.all(requests.map((request) => assessOne(request, services, signal)));
}

async function assessOne(
  request: PackageRequest,
  services: RiskServices,
  signal: AbortSignal,
): Promise<Verdict> {
  const reasons: string[] = [];
  const unjudged: string[] = [];
  const label = `\`${request.name}\``;
  const registryName = ecosystemById(request.ecosystem).registryName;

  const squat = findTyposquat(request.ecosystem, request.name);
  if (squat !== null) reasons.push(describeTyposquat(request.name, squat));

  const facts = await cached(
    services,
    `facts:${request.ecosystem}:${request.name}:${request.version ?? ''}`,
    () => services.registries[request.ecosystem].lookup(request.name, request.version, signal),
  ).catch((e) => {
    unjudged.push(`${registryName} did not answer (${reasonOf(e, signal)})`);
    return null;
  });

  // OSV with the version that would be installed, so one long-ago compromised release does not
  // brand every version; without one, every advisory of the package counts.
  const version = facts?.resolvedVersion ?? null;
  const advisories = await cached(services, `osv:${request.ecosystem}:${request.name}:${version ?? ''}`, () =>
    services.osv.maliciousAdvisories(request.ecosystem, request.name, version, signal),
  ).catch((e) => {
    unjudged.push(`the malware database did not answer (${reasonOf(e, signal)})`);
    return [] as string[];
  });
  if (advisories.length > 0) reasons.push(`${label} is known malware (${advisories.slice(0, 3).join(', ')})`);

  if (facts !== null) {
    const now = services.now().getTime();
    if (!facts.exists && request.customRegistry) {
      unjudged.push(`it comes from a registry the command names, not ${registryName}`);
    } else if (!facts.exists) {
      reasons.push(`${label} does not exist on ${registryName}: a mistyped or made-up name`);
    } else {
      const first = facts.firstPublished;
      if (first !== null && now - first.getTime() < NEW_PACKAGE_DAYS * 86_400_000) {
        reasons.push(
          `${label} was first published ${ago(now - first.getTime())} (under ${NEW_PACKAGE_DAYS} days)`,
        );
      }
      const fresh = facts.versionPublished;
      if (
        fresh !== null &&
        now - fresh.getTime() < FRESH_VERSION_HOURS * 3_600_000 &&
        facts.resolvedVersion !== null
      ) {
        reasons.push(
          `\`${request.name}@${facts.resolvedVersion}\` was published ${ago(now - fresh.getTime())} (under ${FRESH_VERSION_HOURS} hours)`,
        );
      }
    }
  }
  return {
    request,
    risky: reasons.length > 0,
    reasons,
    unjudged: unjudged.length > 0 ? unjudged.join('; ') : null,
  };
}

/** A registry or OSV answer through the cache: facts (with dates) and advisory lists. */
async function cached<T extends RegistryFacts | string[]>(
  services: RiskServices,
  key: string,
  fetchFresh: () => Promise<T>,
): Promise<T> {
  const hit = await services.cache.get(key);
  if (hit !== null) return revive(JSON.parse(hit)) as T;
  const value = await fetchFresh();
  const missing = !Array.isArray(value) && !value.exists;
  const ttl = Array.isArray(value) ? TTL_SECONDS.malware : missing ? TTL_SECONDS.missing : TTL_SECONDS.facts;
  await services.cache.set(key, JSON.stringify(value), ttl);
  return value;
}

function revive(value: unknown): unknown {
  if (Array.isArray(value)) return value;
  const facts = value as Record<string, unknown>;
  const date = (v: unknown) => (typeof v === 'string' ? new Date(v) : null);
  return {
    ...facts,
    firstPublished: date(facts.firstPublished),
    versionPublished: date(facts.versionPublished),
  };
}

function reasonOf(e: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'out of time';
  return e instanceof RegistryUnavailable ? e.reason : 'error';
}

function ago(ms: number): string {
  const hours = Math.floor(ms / 3_600_000);
  if (hours < 1) return 'less than an hour ago';
  if (hours < 48) return `${hours} hour${hours === 1 ? '' : 's'} ago`;
  return `${Math.floor(hours / 24)} days ago`;
}
