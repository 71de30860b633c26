/**
 * What an agent's user puts in the agent's settings so that its shell commands reach the hooks: a
 * curl command that posts the hook input to the service, inside the agent's own JSON shape. One
 * function for every place that shows it (`svc hooks config`, and later the MCP tool and the
 * dashboard's setup page), so they cannot drift apart.
 */

/** Cursor is Cursor (`~/.cursor/hooks.json`), Claude Code is Claude Code (`~/.claude/settings.json`). */
export type AgentId = 'a' | 'b';

/**
 * curl's own limit, and the agent's timeout for the hook: the service answers within its decision
 * budget, and when it cannot, curl fails first and the agent runs the command.
 */
const CURL_MAX_TIME_SECONDS = 15;
const HOOK_TIMEOUT_SECONDS = 20;

/**
 * Where the key goes when the configuration is shown to a model (the MCP tool): the user replaces it
 * with their own key, so a key never enters a model's context.
 */
export const API_KEY_PLACEHOLDER = '<SVC_API_KEY>';

/** Where each agent reads its hook configuration, for the user or the agent that writes it. */
export const HOOK_SETTINGS_FILE: Record<AgentId, string> = {
  a: '~/.cursor/hooks.json',
  b: '~/.claude/settings.json (its "hooks" key)',
};

export interface ClientConfigRequest {
  /** Which agent; anything else is refused. */
  agent: string | undefined;
  /** The user's API key (`svc_...`) or API_KEY_PLACEHOLDER; it is written into the command. */
  key: string | undefined;
  /** The service's base URL; when absent, `defaultBaseUrl()` is asked. */
  baseUrl?: string | undefined;
  /** Write the executable as `curl.exe` and quote for cmd.exe and PowerShell. */
  windows?: boolean;
}

/** A request that cannot make a working configuration, naming the field at fault. */
export class ClientConfigError extends Error {
  constructor(
    readonly field: 'agent' | 'key' | 'baseUrl',
    readonly problem: string,
  ) {
    super(`${field} ${problem}`);
    this.name = 'ClientConfigError';
  }
}

/**
 * The agent's hook configuration, as the JSON value to write into its settings. Checks the agent,
 * then the key (it is pasted into a shell command: no quotes or spaces), then the base URL, which
 * `defaultBaseUrl` supplies only when the request has none (the CLI reads it from the environment).
 * Throws ClientConfigError.
 */
export function hookClientConfig(request: ClientConfigRequest, defaultBaseUrl: () => string): unknown {
  const { agent, key } = request;
  if (agent !== 'a' && agent !== 'b') throw new ClientConfigError('agent', 'must be a or b');
  if (key === undefined || (!key.startsWith('svc_') && key !== API_KEY_PLACEHOLDER))
    throw new ClientConfigError('key', 'must be an svc_ API key');
  if (/['"\s]/.test(key)) throw new ClientConfigError('key', 'must not contain quotes or spaces');
  const baseUrl = request.baseUrl ?? defaultBaseUrl();
  if (!/^https?:\/\/[^\s'"]+$/.test(baseUrl))
    throw new ClientConfigError('baseUrl', 'must be an http(s) URL');
  const command = hookCommand(agent, key, baseUrl, request.windows === true);
  if (agent === 'a') {
    return { version: 1, hooks: { beforeShellExecution: [{ command, timeout: HOOK_TIMEOUT_SECONDS }] } };
  }
  return {
    hooks: {
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS }] }],
    },
  };
}

/**
 * The hook command: POST the hook input (stdin) as received, with the key, to the agent's endpoint.
 * If the service cannot answer within curl's limit, curl fails and the agent runs the command.
 */
export function hookCommand(agent: AgentId, key: string, baseUrl: string, windows: boolean): string {
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
