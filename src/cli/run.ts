import { ConfigError } from '../config/config-error.js';
import { ScanError } from '../scanner/errors.js';
import { DomainError } from '../services/errors.js';
import { VERSION } from '../version.js';
import { type CliIo, EXIT, UsageError } from './io.js';

/** One usage line per command, shown for the commands a build actually has. */
const USAGE: Record<string, string> = {
  scan: "svc scan [PATH] [options]   scan a repository's full git history for committed secrets",
  baseline: 'svc baseline [PATH]         accept the findings history holds today (.svcignore lines)',
  serve: 'svc serve                   run the service (configuration from the environment)',
  worker: 'svc worker                  run dashboard scans only, from the same queue (no HTTP)',
  admin: 'svc admin COMMAND           operator commands: users, plans, teams, API keys, usage',
  'check-command': 'svc check-command "LINE"    what the agent hooks would decide for a shell line',
  hooks: 'svc hooks config ...        the hook configuration for Cursor or Claude Code',
};

export function helpFor(commands: CommandSet): string {
  const lines = Object.keys(commands).map((name) => `  ${USAGE[name] ?? `svc ${name}`}`);
  return `svc ${VERSION}: repository security scanner

Usage:
${lines.join('\n')}
  svc --version               print the version
  svc help [COMMAND]          show help

Run "svc COMMAND --help" for a command's options.
`;
}

type Command = (argv: string[], io: CliIo) => Promise<number>;
export type CommandSet = Record<string, () => Promise<{ run: Command; help: string }>>;

/** Runs one command line and returns its exit code; errors become one line on stderr. */
export async function run(argv: string[], io: CliIo, commands: CommandSet): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-v') {
    io.stdout.write(`${VERSION}\n`);
    return EXIT.passed;
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    const load = commands[rest[0] ?? ''];
    io.stdout.write(load === undefined ? helpFor(commands) : (await load()).help);
    return EXIT.passed;
  }
  const load = commands[command];
  if (load === undefined) {
    writeError(io, `unknown command "${command}" (run "svc --help")`);
    return EXIT.error;
  }
  try {
    return await (await load()).run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      writeError(io, `${e.message} (run "svc ${command} --help")`);
      return EXIT.error;
    }
    if (e instanceof ScanError || e instanceof ConfigError || e instanceof DomainError) {
      writeError(io, e.message);
      return EXIT.error;
    }
    // An unexpected failure: still one line, no stack trace (SVC_DEBUG=1 shows it).
    const message = e instanceof Error ? e.message : String(e);
    writeError(io, `internal error: ${message}`);
    if (io.env.SVC_DEBUG === '1' && e instanceof Error) io.stderr.write(`${e.stack}\n`);
    return EXIT.error;
  }
}

/** The CLI's error line on stderr: `svc: ` and the message, on one line whatever it carries. */
function writeError(io: CliIo, message: string): void {
  io.stderr.write(`svc: ${oneLine(message)}\n`);
}

/**
 * A message as one line: an error from git or the system may carry several (git's own stderr), and
 * the CLI's contract is one line an error, which a CI log or a wrapper script reads as one.
 */
export function oneLine(message: string): string {
  const line = message
    .split(/\r?\n/)
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .join(' ');
  return line === '' ? 'no message' : line;
}
