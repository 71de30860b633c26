/**
 * The package arguments of a Python install (pip, pipx, poetry, pdm, uv): PEP 508
 * requirements (`pkg==1.0`, `pkg[extra]>=2,<3`, `pkg @ URL`) and, for poetry and uv, `pkg@^1.2`.
 * The version text is the specifier with its operator, white space removed (as `PackageRequest.version` says).
 */
import {
  collect,
  nonRegistryReason,
  type OptionSpec,
  type PackageArgs,
  type SpecReading,
  scanArgs,
  WHY,
} from '../../arguments/options.js';

export type PythonTool = 'pip' | 'pipx' | 'poetry' | 'pdm' | 'uv';

/** Options that take a value, per tool. Boolean flags are not listed. */
const VALUE_OPTIONS: Record<PythonTool, readonly string[]> = {
  pip: [
    '-r',
    '--requirement',
    '-c',
    '--constraint',
    '-e',
    '--editable',
    '-i',
    '--index-url',
    '--extra-index-url',
    '-f',
    '--find-links',
    '-t',
    '--target',
    '--prefix',
    '--root',
    '--src',
    '--platform',
    '--python-version',
    '--implementation',
    '--abi',
    '--upgrade-strategy',
    '--no-binary',
    '--only-binary',
    '--progress-bar',
    '--log',
    '--log-file',
    '--proxy',
    '--retries',
    '--timeout',
    '--exists-action',
    '--trusted-host',
    '--cert',
    '--client-cert',
    '--cache-dir',
    '--report',
    '-C',
    '--config-settings',
    '--global-option',
    '--install-option',
    '--python',
    '--keyring-provider',
    '--use-feature',
    '--use-deprecated',
    '--group',
    '--root-user-action',
    '--resume-retries',
  ],
  pipx: ['--python', '--pip-args', '--suffix', '--index-url', '--preinstall', '--spec', '--backend'],
  poetry: [
    '-G',
    '--group',
    '-E',
    '--extras',
    '--python',
    '--platform',
    '--markers',
    '--source',
    '-C',
    '--directory',
    '-P',
    '--project',
  ],
  pdm: [
    '-G',
    '--group',
    '-p',
    '--project',
    '-e',
    '--editable',
    '-L',
    '--lockfile',
    '--venv',
    '-k',
    '--skip',
    '-C',
    '--config-setting',
  ],
  uv: [
    '-r',
    '--requirement',
    '--requirements',
    '-c',
    '--constraint',
    '--constraints',
    '--override',
    '--overrides',
    '-b',
    '--build-constraint',
    '--build-constraints',
    '-e',
    '--editable',
    '--group',
    '--optional',
    '--extra',
    '-p',
    '--python',
    '--index',
    '--default-index',
    '-i',
    '--index-url',
    '--extra-index-url',
    '-f',
    '--find-links',
    '--directory',
    '--project',
    '--package',
    '--rev',
    '--tag',
    '--branch',
    '--script',
    '--bounds',
    '-m',
    '--marker',
    '--config-file',
    '--cache-dir',
    '--color',
    '--index-strategy',
    '--keyring-provider',
    '--resolution',
    '--prerelease',
    '--fork-strategy',
    '--exclude-newer',
    '--exclude-newer-package',
    '--link-mode',
    '--target',
    '--prefix',
    '--python-platform',
    '--python-version',
    '-P',
    '--upgrade-package',
    '--reinstall-package',
    '--refresh-package',
    '--no-binary',
    '--only-binary',
    '--no-build-package',
    '--no-binary-package',
    '-C',
    '--config-setting',
    '--torch-backend',
  ],
};

const SPECS: Record<PythonTool, OptionSpec> = {
  pip: { values: new Set(VALUE_OPTIONS.pip), clusters: true },
  pipx: { values: new Set(VALUE_OPTIONS.pipx), clusters: true },
  poetry: { values: new Set(VALUE_OPTIONS.poetry), clusters: true },
  pdm: { values: new Set(VALUE_OPTIONS.pdm), clusters: true },
  uv: { values: new Set(VALUE_OPTIONS.uv), clusters: true },
};

/** How the tool's options are read (getopt-style: `-Ur req.txt`, `-rreq.txt`, `--opt=value`). */
export function pythonOptions(tool: PythonTool): OptionSpec {
  return SPECS[tool];
}

const REQUIREMENT_FILES = new Set(['-r', '--requirement', '--requirements']);
const EDITABLE = new Set(['-e', '--editable']);

const ARCHIVES = /\.(?:whl|tar\.gz|tgz|tar\.bz2|tar\.xz|tar|zip|egg)$/i;
/** A path written without `./`: a separator before any `@`, `;` or white space. */
const BARE_PATH = /^[^@;\s[]*[\\/]/;
/** A PEP 508 name, then extras, then whatever follows (specifier, `@ URL`, markers). */
const REQUIREMENT = /^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(\[[^\]]*\])?\s*([\s\S]*)$/;
const OPERATOR = /^(?:===|==|!=|~=|<=|>=|<|>|\^|~|=)/;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
/** PEP 440 specifiers (`==1.0.*`, `>=1,<2`, `!=2.0rc1`) and poetry's `^1.2`, `latest`. */
const VERSION = /^[A-Za-z0-9.*+!<>=~^,_-]+$/;

/**
 * One Python package argument: `pkg`, `pkg==1.0`, `pkg[extra]>=2`, `pkg>=1,<2; python_version>"3"`,
 * `pkg@^1.2` (poetry, uv), or not a registry package (`pkg @ https://...`, a path, a wheel file...).
 */
export function readPythonSpec(spec: string): SpecReading {
  const raw = spec.trim();
  if (raw === '') return null;
  const why = nonRegistryReason(raw, ARCHIVES);
  if (why !== null) return { why };
  if (BARE_PATH.test(raw)) return { why: WHY.localPath };
  const m = REQUIREMENT.exec(raw);
  if (m === null) return { why: WHY.invalid };
  const name = m[1]!;
  let rest = (m[3] ?? '').trim();
  if (rest.startsWith('@')) {
    const target = rest.slice(1).trim();
    const targetWhy = nonRegistryReason(target, ARCHIVES);
    if (targetWhy !== null) return { why: targetWhy };
    if (SCHEME.test(target)) return { why: WHY.url };
    const version = target.replace(/\s+/g, '');
    if (version === '') return { request: { ecosystem: 'PyPI', name, version: null } };
    return VERSION.test(version)
      ? { request: { ecosystem: 'PyPI', name, version } }
      : { why: WHY.badVersion };
  }
  const marker = rest.indexOf(';');
  if (marker !== -1) rest = rest.slice(0, marker);
  let version = rest.replace(/\s+/g, '');
  if (version.startsWith('(') && version.endsWith(')')) version = version.slice(1, -1);
  if (version === '') return { request: { ecosystem: 'PyPI', name, version: null } };
  if (!OPERATOR.test(version)) return { why: WHY.invalid };
  return VERSION.test(version) ? { request: { ecosystem: 'PyPI', name, version } } : { why: WHY.badVersion };
}

/**
 * The packages named by the arguments after `install`/`add`. A requirements file (`-r`) is named in
 * `skipped` and not read; an editable install (`-e`) is a path or a source-control checkout.
 */
export function packagesFromArgs(args: readonly string[], tool: PythonTool = 'pip'): PackageArgs {
  const result: PackageArgs = { installs: [], skipped: [] };
  const scanned = scanArgs(args, SPECS[tool]);
  // Old pipx: `pipx install --spec SOURCE name` installs SOURCE; the positional is only the app name.
  const pipxSpec =
    tool === 'pipx' ? scanned.find((a) => a.kind === 'option' && a.name === '--spec') : undefined;
  for (const arg of scanned) {
    if (arg.kind === 'positional') {
      if (pipxSpec === undefined) collect(result, arg.value, readPythonSpec(arg.value));
      continue;
    }
    if (arg.value === null) continue;
    if (REQUIREMENT_FILES.has(arg.name) && SPECS[tool].values.has(arg.name)) {
      result.skipped.push({ spec: arg.value, why: WHY.requirements });
    } else if (EDITABLE.has(arg.name) && SPECS[tool].values.has(arg.name)) {
      const reading = readPythonSpec(arg.value);
      collect(
        result,
        arg.value,
        reading !== null && 'why' in reading ? reading : { why: 'editable install' },
      );
    } else if (arg === pipxSpec) {
      collect(result, arg.value, readPythonSpec(arg.value));
    }
  }
  return result;
}
