/** What a command may touch of the process: the CLI's seams, so tests run commands in-process. */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** What git pipes to a server hook (svc scan --pre-receive); absent: nothing to read. */
  stdin?: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
}

/** A command-line mistake: exit 2 with a one-line message and a pointer to the help. */
export class UsageError extends Error {}

export const EXIT = { passed: 0, failed: 1, error: 2, incomplete: 3 } as const;

/** node:util parseArgs's message, cut to its first sentence and unquoted: one line for the user. */
export function describeParseError(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return message.split(/\.\s/)[0]!.replace(/'/g, '');
}
