import type { PackageArgs } from '../arguments/options.js';
import type { Ecosystem, RegistryClient } from '../types.js';
import type { RegistryClientOptions } from './fetch.js';

/**
 * Everything the hooks know about one package ecosystem, in one place: the command parser, the
 * registry lookup, the malware lookup and the typosquat rule consult this and hold no per-ecosystem
 * switch. Each ecosystem's descriptor lives in its own folder; `index.ts` lists them
 * (docs/adding-an-ecosystem.md).
 */
export interface EcosystemDescriptor<Id extends string = Ecosystem> {
  /**
   * The name requests, cache keys and recorded decisions carry; OSV's spelling of the ecosystem
   * (`npm`, `PyPI`, `crates.io`, `Go`, `NuGet`). Never rename one: it is stored.
   */
  readonly id: Id;
  /** How messages name the registry ("does not exist on the Go module proxy"). */
  readonly registryName: string;
  /** The key of the registry's configured base URL in `Config.registries` (`npm`, `goproxy`). */
  readonly urlKey: string;
  /** The registry client (existence, first publication, the version a request resolves to). */
  createRegistry(options: RegistryClientOptions): RegistryClient;
  /** The tools whose install commands name this ecosystem's packages. */
  readonly commands: readonly InstallCommand[];
  /** Options and variables that point an install at a registry other than the public one. */
  readonly otherRegistry: OtherRegistry;
  readonly osv: OsvNames;
  readonly names: NameRules;
  /** Command lines and the packages they name: the descriptor test parses each. */
  readonly samples: readonly CommandSample[];
}

/** One tool on the command line (`npm`, `pip`, `dotnet`) and how its arguments are read. */
export interface InstallCommand {
  /** The tool's name, for documentation and test messages. */
  readonly tool: string;
  /** Executable names, as `executableName` gives them (lowercase, no `.exe`). */
  readonly executables: readonly string[];
  /** Further executable names, for tools with versioned launchers (`pip3.11`, `python3.12`). */
  readonly pattern?: RegExp;
  /**
   * The sub-commands that install, as typed after the executable (`install`, `add`, `add package`,
   * `-m pip install`). Each alone must read as an install: the descriptor test checks it.
   */
  readonly installs: readonly string[];
  /** The packages the arguments (after the executable) install; null when they are not an install. */
  read(args: string[]): PackageArgs | null;
}

export interface OtherRegistry {
  /** Options naming another registry, with their dashes (`--registry`, `-i`); `=value` is matched too. */
  readonly options: readonly string[];
  /** Environment variables set on the command line (`PIP_INDEX_URL=...`). */
  readonly variables: readonly string[];
  /** Further option shapes (npm's per-scope `--@scope:registry=...`). */
  readonly optionPattern?: RegExp;
}

/** How the malware lookup names the ecosystem, a package and a version to OSV. */
export interface OsvNames {
  /** The ecosystem as OSV spells it. */
  readonly ecosystem: string;
  /** The package name in the form OSV's data uses (PyPI: PEP 503). */
  packageName(name: string): string;
  /**
   * The version to send when the request pins exactly one, in the form OSV's data uses; null for a
   * range, a tag or a wildcard (OSV then answers for every version). Gets non-empty, trimmed text.
   */
  exactVersion(version: string): string | null;
}

/** How the typosquat rule compares names in this ecosystem. */
export interface NameRules {
  /** The form under which the registry treats two names as the same package (input untrimmed). */
  normalize(name: string): string;
  /** The popular names, most popular first (`popular.json` in the ecosystem's folder). */
  readonly popular: { readonly names: readonly string[] };
  /**
   * Names differ by letter case (npm: `jsonstream` is not `JSONStream`): a name is popular only as
   * the list spells it, and one that differs only in case is a look-alike.
   */
  readonly caseSensitive?: boolean;
  /**
   * The forms a (normalized) name is judged under, most specific first; by default itself. Go: a
   * package path is judged as each enclosing module path, down to two elements.
   */
  judgedForms?(key: string): string[];
  /** Who publishes a (normalized) name; two names of one publisher cannot squat each other. */
  publisher?(key: string): string | null;
  /** Look-alikes this ecosystem's naming allows beyond edits, separators and case. */
  readonly confusions?: readonly NameConfusion[];
}

/** The look-alike kinds an ecosystem may add to the typosquat rule. */
export type ConfusionKind =
  /** An npm scope dropped, added or faked (`babel-core` / `@babel/core`, `@lodash/lodash`). */
  | 'scope'
  /** The same Go module path on another host (`gitlab.com/stretchr/testify`). */
  | 'host';

/**
 * A look-alike found by a lookup key: every popular name (in normal form) is indexed under
 * `indexKey`, and a name is a look-alike of the most popular name indexed under its `probeKey`. Both
 * get the name's form without separators too, which the typosquat rule has already computed.
 */
export interface NameConfusion {
  readonly kind: ConfusionKind;
  indexKey(popularKey: string, bare: string): string | null;
  probeKey(key: string, bare: string): string | null;
}

export interface CommandSample {
  line: string;
  installs: readonly { name: string; version: string | null }[];
}
