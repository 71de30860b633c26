/**
 * Shapes shared by the hook pieces: the command parser turns a shell
 * line into package requests; registries and OSV answer about each; the risk rules judge them.
 */

import type { Ecosystem } from './ecosystems/index.js';

export type { Ecosystem };

/** One package a command line would install. */
export interface PackageRequest {
  ecosystem: Ecosystem;
  /** The registry name (npm: with its scope; Go: the module path; PyPI: as typed, extras removed). */
  name: string;
  /**
   * The version text the user gave, or null: after `@` for npm, cargo and go (`^1.2`, `v1.2.3`,
   * `latest`; for npm, the `--tag` value when the spec names no version), the PEP 440 specifier with
   * its operator for Python tools (`==1.0`, `>=1,<2`), the `--version` value for dotnet.
   */
  version: string | null;
  /**
   * The command installs from a registry it names (`--registry`, `-i`, `PIP_INDEX_URL=`...), not the
   * public one the checks ask: a name missing there proves nothing.
   */
  customRegistry?: true;
}

/** Something on an install line that is not checked, and why (a local path, a URL, a git source...). */
export interface SkippedSpec {
  spec: string;
  why: string;
}

export interface ParsedCommand {
  /** Every package the line would install, in order, at most MAX_PACKAGES. */
  installs: PackageRequest[];
  skipped: SkippedSpec[];
  /** True when some part of the line is an install command, even one naming no checkable package. */
  isInstall: boolean;
}

/** Packages checked per hook command: the rest are listed as not checked, so a decision stays fast. */
export const MAX_PACKAGES = 10;

/** What a registry knows of a package (and of the requested version, when one was named). */
export interface RegistryFacts {
  exists: boolean;
  /** When the package's first version was published; null when the registry does not say. */
  firstPublished: Date | null;
  /** The version the request resolves to (exact version named, else the latest), when known. */
  resolvedVersion: string | null;
  /** When that version was published; null when unknown. */
  versionPublished: Date | null;
}

/** A registry that could not answer (timeout, 5xx, a body that is not what it should be). */
export class RegistryUnavailable extends Error {
  constructor(
    readonly registry: string,
    readonly reason: string,
  ) {
    super(`${registry}: ${reason}`);
    this.name = 'RegistryUnavailable';
  }
}

export interface RegistryClient {
  readonly ecosystem: Ecosystem;
  /** Facts about a package; throws RegistryUnavailable when the registry cannot say. */
  lookup(name: string, version: string | null, signal: AbortSignal): Promise<RegistryFacts>;
}

/** OSV: the malicious-package advisories (ids starting `MAL-`) that affect a package. */
export interface MalwareLookup {
  /** Throws RegistryUnavailable when OSV cannot say. */
  maliciousAdvisories(
    ecosystem: Ecosystem,
    name: string,
    version: string | null,
    signal: AbortSignal,
  ): Promise<string[]>;
}
