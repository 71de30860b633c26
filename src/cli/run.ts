import { ConfigError } from '../config/config.js';
import { ScanError } from '../scanner/index.js';
import { VERSION } from '../version.js';
import { type CliIo, EXIT, UsageError } from './io.js';
import { SCAN_HELP, scanCommand } from './scan-command.js';

export const HELP = `svc ${VERSION}: repository security scanner

Usage:
  svc scan [PATH] [options]   scan a repository's full git history for committed secrets
  svc --version               print the version
  svc help [COMMAND]          show help

Run "svc scan --help" for the scan options.
`;

const COMMANDS: Record<string, (argv: string[], io: CliIo) => Promise<number>> = {
  scan: scanCommand,
};

/** Runs one command line and returns its exit code; errors become one line on stderr. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-v') {
    io.stdout.write(`${VERSION}\n`);
    return EXIT.passed;
  }
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.stdout.write(rest[0] === 'scan' ? SCAN_HELP : HELP);
    return EXIT.passed;
  }
  const handler = COMMANDS[command];
  if (handler === undefined) {
    io.stderr.write(`svc: unknown command "${command}" (run "svc --help")\n`);
    return EXIT.error;
  }
  try {
    return await handler(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`svc: ${e.message} (run "svc ${command} --help")\n`);
      return EXIT.error;
    }
    if (e instanceof ScanError || e instanceof ConfigError) {
      io.stderr.write(`svc: ${e.message}\n`);
      return EXIT.error;
    }
    // An unexpected failure: still one line, no stack trace (SVC_DEBUG=1 shows it).
    const message = e instanceof Error ? e.message : String(e);
    io.stderr.write(`svc: internal error: ${message}\n`);
    if (io.env.SVC_DEBUG === '1' && e instanceof Error) io.stderr.write(`${e.stack}\n`);
    return EXIT.error;
  }
}
