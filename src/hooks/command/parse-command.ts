/**
 * The install-command parser: which packages would a shell line install?
 *
 * The line is split into simple commands (`;`, `&&`, `||`, `|`, `&`, newlines, subshells; never
 * inside quotes), each is unwrapped (`sudo`, `VAR=value`, `env`, `time`...) and its executable looked
 * up among the install commands the ecosystems own (`src/hooks/ecosystems/<name>/commands.ts`), which
 * read the arguments. `sh -c`/`bash -c` scripts, `eval`, `cmd /c` and `powershell -Command` are read
 * as command lines too. Nothing throws: on any input the answer is what could be read.
 *
 * - A recognized install command naming no package (`npm install`, `npm ci`, `poetry install`,
 *   `xargs npm install`) is an install (`isInstall`) with nothing to check: the lockfile or the
 *   piped list is not read.
 * - The same package (ecosystem, name, version) named twice is listed once; skipped specs are listed
 *   up to MAX_SKIPPED, then counted; at most MAX_PACKAGES packages are checked.
 * - Registry options (`--registry`, `-i`, `--index-url`, cargo `--registry`) do not change what is
 *   listed: the packages are named as if from the public registry and marked `customRegistry`; the
 *   risk rules decide.
 */

import type { PackageArgs } from '../arguments/options.js';
import type { InstallCommand } from '../ecosystems/ecosystem-descriptor.js';
import { ECOSYSTEMS, type Ecosystem, ecosystemById } from '../ecosystems/index.js';
import { MAX_PACKAGES, type PackageRequest, type ParsedCommand, type SkippedSpec } from '../types.js';
import { simpleCommands } from './tokenize.js';
import { executableName, unwrap } from './wrappers.js';

/** Skipped specs listed per command; beyond it one entry says how many more there were. */
export const MAX_SKIPPED = 20;

/** How deep `bash -c "..."` / `eval` scripts are followed. */
const MAX_DEPTH = 4;

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish']);

/** Every ecosystem's install commands, by executable name; then those known by a name pattern. */
const BY_EXECUTABLE = new Map<string, InstallCommand>();
const BY_PATTERN: InstallCommand[] = [];
for (const ecosystem of ECOSYSTEMS) {
  for (const command of ecosystem.commands) {
    for (const name of command.executables) BY_EXECUTABLE.set(name, command);
    if (command.pattern !== undefined) BY_PATTERN.push(command);
  }
}

/** The install command an executable is, if any ecosystem owns it. */
export function installCommandOf(executable: string): InstallCommand | undefined {
  return BY_EXECUTABLE.get(executable) ?? BY_PATTERN.find((c) => c.pattern!.test(executable));
}

function packageCommand(name: string, args: string[]): PackageArgs | null {
  return installCommandOf(name)?.read(args) ?? null;
}

/** The script of `bash -c SCRIPT`, `sh -lc SCRIPT`, `fish --command=SCRIPT`; null for a script file. */
function shellScript(args: string[]): string | null {
  let command = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === '--' || word === '-') {
      return command && i + 1 < args.length ? args[i + 1]! : null;
    }
    if (word.startsWith('--')) {
      if (word.startsWith('--command=')) return word.slice('--command='.length);
      if (word === '--command') command = true;
      else if (word === '--rcfile' || word === '--init-file') i++;
      continue;
    }
    if (word.startsWith('-') || word.startsWith('+')) {
      const letters = word.slice(1);
      if (letters.includes('c')) command = true;
      if (letters.includes('o') || letters.includes('O')) i++; // `-o pipefail`
      continue;
    }
    return command ? word : null;
  }
  return null;
}

const POWERSHELL_VALUES = new Set([
  ...['-executionpolicy', '-ep', '-ex', '-windowstyle', '-w', '-workingdirectory', '-wd'],
  ...['-configurationname', '-inputformat', '-if', '-outputformat', '-of', '-settingsfile', '-version'],
]);

/** `powershell [-NoProfile ...] [-Command] TEXT...` and `cmd [/s /q] /c TEXT...`: the command text. */
function windowsShellScript(name: string, args: string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!.toLowerCase();
    if (name === 'cmd') {
      if (word === '/c' || word === '/k') return args.slice(i + 1).join(' ');
      if (word.startsWith('/c') || word.startsWith('/k'))
        return [args[i]!.slice(2), ...args.slice(i + 1)].join(' ');
      if (word.startsWith('/')) continue;
      return null;
    }
    if (word === '-command' || word === '-c' || word === '/command' || word === '-commandwithargs') {
      return args.slice(i + 1).join(' ');
    }
    if (word === '-file' || word === '-f' || word === '-encodedcommand' || word === '-e' || word === '-ec') {
      return null;
    }
    if (POWERSHELL_VALUES.has(word)) {
      i++;
      continue;
    }
    if (word.startsWith('-')) continue;
    return args.slice(i).join(' ');
  }
  return null;
}

/** Whether the command (its leading assignments or its options) names another registry. */
function namesOtherRegistry(
  ecosystem: Ecosystem,
  words: readonly string[],
  args: readonly string[],
): boolean {
  const { options, variables, optionPattern } = ecosystemById(ecosystem).otherRegistry;
  const assigns = words.some((w) => variables.some((v) => w.startsWith(`${v}=`)));
  const names = args.some(
    (a) => options.some((o) => a === o || a.startsWith(`${o}=`)) || optionPattern?.test(a) === true,
  );
  return assigns || names;
}

interface Reading {
  installs: PackageRequest[];
  skipped: SkippedSpec[];
  isInstall: boolean;
}

function readCommand(words: string[], into: Reading, depth: number): void {
  const command = unwrap(words);
  if (command === null || command.length === 0) return;
  const name = executableName(command[0]!);
  const args = command.slice(1);
  let script: string | null = null;
  if (SHELLS.has(name)) script = shellScript(args);
  else if (name === 'eval') script = args.join(' ');
  else if (name === 'cmd' || name === 'powershell' || name === 'pwsh')
    script = windowsShellScript(name, args);
  if (script !== null) {
    if (depth < MAX_DEPTH) readLine(script, into, depth + 1);
    return;
  }
  const found = packageCommand(name, args);
  if (found === null) return;
  into.isInstall = true;
  // Once per ecosystem, not per package: a line may name thousands of packages.
  const other = new Map<Ecosystem, boolean>();
  for (const request of found.installs) {
    let custom = other.get(request.ecosystem);
    if (custom === undefined) {
      custom = namesOtherRegistry(request.ecosystem, words, args);
      other.set(request.ecosystem, custom);
    }
    if (custom) request.customRegistry = true;
  }
  into.installs.push(...found.installs);
  into.skipped.push(...found.skipped);
}

function readLine(line: string, into: Reading, depth: number): void {
  for (const words of simpleCommands(line)) {
    try {
      readCommand(words, into, depth);
    } catch {
      // One unreadable command does not hide the others.
    }
  }
}

function plural(n: number, word: string): string {
  return `${n} more ${word}${n === 1 ? '' : 's'}`;
}

/** Why the packages past the first MAX_PACKAGES are skipped; the decision's message repeats it. */
export const PACKAGE_CAP_REASON = `not checked: at most ${MAX_PACKAGES} packages are checked per command`;

/** Removes repeats, keeps the first MAX_PACKAGES packages and says how many were left out. */
function finish(reading: Reading): ParsedCommand {
  const seen = new Set<string>();
  const unique: PackageRequest[] = [];
  for (const r of reading.installs) {
    const key = JSON.stringify([r.ecosystem, r.name, r.version]);
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(r);
  }
  const seenSkips = new Set<string>();
  const skips: SkippedSpec[] = [];
  for (const s of reading.skipped) {
    const key = JSON.stringify([s.spec, s.why]);
    if (seenSkips.has(key)) continue;
    seenSkips.add(key);
    skips.push(s);
  }
  const skipped = skips.slice(0, MAX_SKIPPED);
  if (skips.length > MAX_SKIPPED) {
    skipped.push({ spec: plural(skips.length - MAX_SKIPPED, 'argument'), why: 'not checked, not listed' });
  }
  if (unique.length > MAX_PACKAGES) {
    skipped.push({
      spec: plural(unique.length - MAX_PACKAGES, 'package'),
      why: PACKAGE_CAP_REASON,
    });
  }
  return { installs: unique.slice(0, MAX_PACKAGES), skipped, isInstall: reading.isInstall };
}

/** The packages a shell command line would install. Never throws. */
export function parseCommandLine(line: string): ParsedCommand {
  const reading: Reading = { installs: [], skipped: [], isInstall: false };
  try {
    if (typeof line === 'string') readLine(line, reading, 0);
  } catch {
    // Keep what was read before the failure.
  }
  try {
    return finish(reading);
  } catch {
    return { installs: [], skipped: [], isInstall: reading.isInstall };
  }
}
