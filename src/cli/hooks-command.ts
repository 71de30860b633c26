import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config.js';
import { type CliIo, describeParseError, EXIT, UsageError } from './io.js';

export const HOOKS_HELP = `Usage: svc hooks config --agent a|b --key KEY [--base-url URL] [--windows]

Prints the hook configuration for a coding agent (spec 4.3). It holds your key: put it in your
user-level settings, not a repository.
  --agent a   agent A (Cursor): ~/.cursor/hooks.json
  --agent b   agent B (Claude Code): the "hooks" of ~/.claude/settings.json
  --base-url  the service (default SVC_BASE_URL)
  --windows   write the curl executable as curl.exe
`;

/** Spec 4.3 and 8: curl's own limit, and the agent's timeout for the hook. */
const CURL_MAX_TIME_SECONDS = 15;
const HOOK_TIMEOUT_SECONDS = 20;

/**
 * The hook command: POST the hook input (stdin) as received, with the key, to the agent's endpoint.
 * If the service cannot answer within curl's limit, curl fails and the agent runs the command.
 */
export function hookCommand(agent: 'a' | 'b', key: string, baseUrl: string, windows: boolean): string {
  const url = `${baseUrl.replace(/\/+$/, '')}/api/hooks/agent-${agent}`;
  // cmd.exe and PowerShell do not take single quotes around arguments; POSIX shells take both.
  const q = (s: string) => (windows ? `"${s}"` : `'${s}'`);
  return [
    windows ? 'curl.exe' : 'curl',
    '-sS',
    '--max-time',
    String(CURL_MAX_TIME_SECONDS),
    '-X',
    'POST',
    '-H',
    q(`Authorization: Bearer ${key}`),
    '-H',
    q('Content-Type: application/json'),
    '--data-binary',
    '@-',
    q(url),
  ].join(' ');
}

export function hooksConfig(agent: 'a' | 'b', key: string, baseUrl: string, windows: boolean): unknown {
  const command = hookCommand(agent, key, baseUrl, windows);
  if (agent === 'a') {
    return { version: 1, hooks: { beforeShellExecution: [{ command, timeout: HOOK_TIMEOUT_SECONDS }] } };
  }
  return {
    hooks: {
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS }] }],
    },
  };
}

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
  if (values.agent !== 'a' && values.agent !== 'b') throw new UsageError('--agent must be a or b');
  if (values.key === undefined || !values.key.startsWith('svc_'))
    throw new UsageError('--key must be an svc_ API key');
  if (/['"\s]/.test(values.key)) throw new UsageError('--key must not contain quotes or spaces');
  const baseUrl = values['base-url'] ?? loadConfig(io.env).baseUrl;
  if (!/^https?:\/\/[^\s'"]+$/.test(baseUrl)) throw new UsageError('--base-url must be an http(s) URL');
  io.stdout.write(
    `${JSON.stringify(hooksConfig(values.agent, values.key, baseUrl, values.windows === true), null, 2)}\n`,
  );
  return EXIT.passed;
}
