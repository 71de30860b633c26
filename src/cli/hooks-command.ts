import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config.js';
import { ClientConfigError, hookClientConfig } from '../hooks/agents/client-config.js';
import { type CliIo, describeParseError, EXIT, UsageError } from './io.js';

export const HOOKS_HELP = `Usage: svc hooks config --agent a|b --key KEY [--base-url URL] [--windows]

Prints the hook configuration for a coding agent. It holds your key: put it in your
user-level settings, not a repository.
  --agent a   agent A (Cursor): ~/.cursor/hooks.json
  --agent b   agent B (Claude Code): the "hooks" of ~/.claude/settings.json
  --base-url  the service (default SVC_BASE_URL)
  --windows   write the curl executable as curl.exe
`;

/** The command-line spelling of each field a configuration request can get wrong. */
const FLAGS: Record<ClientConfigError['field'], string> = {
  agent: '--agent',
  key: '--key',
  baseUrl: '--base-url',
};

export async function hooksCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout.write(HOOKS_HELP);
    return EXIT.passed;
  }
  if (sub !== 'config') throw new UsageError(`unknown hooks command "${sub}" (expected config)`);
  let values: { agent?: string; key?: string; 'base-url'?: string; windows?: boolean };
  try {
    values = parseArgs({
      args: rest,
      strict: true,
      options: {
        agent: { type: 'string' },
        key: { type: 'string' },
        'base-url': { type: 'string' },
        windows: { type: 'boolean' },
      },
    }).values;
  } catch (e) {
    throw new UsageError(describeParseError(e));
  }
  let config: unknown;
  try {
    config = hookClientConfig(
      { agent: values.agent, key: values.key, baseUrl: values['base-url'], windows: values.windows === true },
      () => loadConfig(io.env).baseUrl,
    );
  } catch (e) {
    if (e instanceof ClientConfigError) throw new UsageError(`${FLAGS[e.field]} ${e.problem}`);
    throw e;
  }
  io.stdout.write(`${JSON.stringify(config, null, 2)}\n`);
  return EXIT.passed;
}
