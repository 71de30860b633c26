/**
 * What comes before the real command of a simple command: `VAR=value`
 * assignments, shell keywords (`then`, `do`, `!`...), and wrappers that run the command they are
 * given unchanged: `sudo`, `doas`, `env`, `command`, `exec`, `time`, `nice`, `nohup`, `timeout`,
 * `xargs`, `stdbuf`, `ionice`, `corepack`, `busybox`, `winpty`. Package runners (`npx`, `bunx`,
 * `pnpm dlx`) are not wrappers: they run a package, they do not install one into the project.
 */
import { firstPositional, type OptionSpec, scanArgs } from '../arguments/options.js';

/** The command name of a word: its base name, lower case, without a Windows suffix. */
export function executableName(word: string): string {
  const base = word.slice(Math.max(word.lastIndexOf('/'), word.lastIndexOf('\\')) + 1).toLowerCase();
  return base.replace(/\.(?:exe|cmd|bat|ps1)$/, '');
}

/**
 * Gets the words of the simple command and the index just after the wrapper's name; answers where
 * the wrapped command starts (in the same words, or in new ones), or null when nothing runs.
 */
type Wrapper = (words: readonly string[], from: number) => { words: readonly string[]; at: number } | null;

interface WrapperSpec extends OptionSpec {
  /** Positionals the wrapper takes before the command (`timeout DURATION cmd`). */
  readonly operands?: number;
  /** Options with which the wrapper does not run the command (`command -v npm`, `sudo -l`). */
  readonly notRunning?: readonly string[];
}

function wrapper(spec: WrapperSpec): Wrapper {
  const stop = new Set(spec.notRunning ?? []);
  return (words, from) => {
    const start = firstPositional(words, spec, from);
    if (start === -1) return null;
    if (stop.size > 0 && start > from) {
      for (const arg of scanArgs(words.slice(from, start), spec)) {
        if (arg.kind === 'option' && stop.has(arg.name)) return null;
      }
    }
    const at = start + (spec.operands ?? 0);
    return at < words.length ? { words, at } : null;
  };
}

const set = (...names: string[]): ReadonlySet<string> => new Set(names);

/** `env [-i] [-u NAME] [-C DIR] [-S 'cmd args'] [NAME=value]... cmd`. */
const ENV_SPEC: OptionSpec = {
  values: set('-u', '--unset', '-C', '--chdir', '-S', '--split-string', '-P'),
  clusters: true,
};

const env: Wrapper = (words, from) => {
  const start = firstPositional(words, ENV_SPEC, from);
  const end = start === -1 ? words.length : start;
  for (const arg of scanArgs(words.slice(from, end), ENV_SPEC)) {
    if (arg.kind === 'option' && (arg.name === '-S' || arg.name === '--split-string') && arg.value !== null) {
      const split = arg.value.split(/\s+/).filter((w) => w !== '');
      return { words: [...split, ...words.slice(end)], at: 0 };
    }
  }
  return start === -1 ? null : { words, at: start };
};

const WRAPPERS = new Map<string, Wrapper>([
  [
    'sudo',
    wrapper({
      values: set(
        ...['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-T', '-U', '-R'],
        ...['--user', '--group', '--close-from', '--chdir', '--host', '--prompt', '--role', '--type'],
        ...['--command-timeout', '--other-user', '--chroot'],
      ),
      clusters: true,
      notRunning: ['-e', '--edit', '-l', '--list', '-V', '--version', '-v', '--validate', '-K'],
    }),
  ],
  ['doas', wrapper({ values: set('-u', '-C'), clusters: true, notRunning: ['-C'] })],
  ['env', env],
  ['command', wrapper({ values: set(), clusters: true, notRunning: ['-v', '-V'] })],
  ['exec', wrapper({ values: set('-a'), clusters: true })],
  ['time', wrapper({ values: set('-o', '--output', '-f', '--format'), clusters: true })],
  ['nice', wrapper({ values: set('-n', '--adjustment'), clusters: true })],
  ['nohup', wrapper({ values: set() })],
  ['timeout', wrapper({ values: set('-s', '--signal', '-k', '--kill-after'), clusters: true, operands: 1 })],
  [
    'xargs',
    wrapper({
      values: set(
        ...['-I', '-L', '-n', '-P', '-s', '-d', '-E', '-a'],
        ...['--max-args', '--max-procs', '--max-chars', '--delimiter', '--eof', '--arg-file'],
        ...['--max-lines', '--process-slot-var'],
      ),
      clusters: true,
    }),
  ],
  ['stdbuf', wrapper({ values: set('-i', '-o', '-e', '--input', '--output', '--error'), clusters: true })],
  [
    'ionice',
    wrapper({
      values: set('-c', '-n', '--class', '--classdata'),
      clusters: true,
      notRunning: ['-p', '-P', '-u', '--pid', '--pgid', '--uid'],
    }),
  ],
  ['corepack', wrapper({ values: set() })],
  ['busybox', wrapper({ values: set() })],
  ['winpty', wrapper({ values: set() })],
]);

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', '{', '}']);
const MAX_WRAPPERS = 1000;

/**
 * The command a simple command runs, its name first: assignments, keywords and wrappers removed.
 * Null when nothing runs (`command -v npm`, `sudo -l`, a line of assignments only).
 */
export function unwrap(words: readonly string[]): string[] | null {
  let current = words;
  let i = 0;
  let wrappers = 0;
  while (i < current.length) {
    const word = current[i]!;
    if (ASSIGNMENT.test(word) || KEYWORDS.has(word)) {
      i++;
      continue;
    }
    const wrap = WRAPPERS.get(executableName(word));
    if (wrap === undefined) return current.slice(i);
    if (++wrappers > MAX_WRAPPERS) return null;
    const inner = wrap(current, i + 1);
    if (inner === null) return null;
    current = inner.words;
    i = inner.at;
  }
  return null;
}
