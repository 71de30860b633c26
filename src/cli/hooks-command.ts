import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config.js';
import { ClientConfigError, hookClientConfig } from '../hooks/agents/client-config.js';
import { installGitHook } from './git-hook.js';
import { type CliIo, describeParseError, EXIT, UsageError } from './io.js';

export const HOOKS_HELP = `Usage: svc hooks config --agent a|b --key KEY [--base-url URL] [--windows]
       svc hooks install-git [PATH] [--force]

config: prints the hook configuration for a coding agent. It holds your key: put it in your
user-level settings, not a repository.
  --agent a   Cursor: ~/.cursor/hooks.json
  --agent b   Claude Code: the "hooks" of ~/.claude/settings.json
  --base-url  the service (default SVC_BASE_URL)
  --windows   write the curl executable as curl.exe

install-git: writes the git pre-commit hook of the repository at PATH (default .) that runs
\`svc scan --staged\`: a secret in code refuses the commit.
  --force     replace a pre-commit hook that is not svc's (without it, one is left alone)
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
  if (sub === 'install-git') return installGit(rest, io);
  if (sub !== 'config')
    throw new UsageError(`unknown hooks command "${sub}" (expected config or install-git)`);
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

async function installGit(argv: string[], io: CliIo): Promise<number> {
  let parsed: { values: { force?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: { force: { type: 'boolean' } },
    });
  } catch (e) {
    throw new UsageError(describeParseError(e));
  }
  if (parsed.positionals.length > 1)
    throw new UsageError(`expected one PATH, got ${parsed.positionals.length}`);
  // The svc running now, as the hook's fallback when svc is not on PATH at commit time: the single
  // executable, or node and this CLI's entry.
  const self = process.execPath.endsWith('/node')
    ? [process.execPath, process.argv[1] ?? '']
    : [process.execPath];
  const path = await installGitHook(parsed.positionals[0] ?? '.', parsed.values.force === true, self);
  io.stdout.write(`svc: pre-commit hook written to ${path}: each commit's staged changes are scanned\n`);
  return EXIT.passed;
}
