import { describe, expect, it } from 'vitest';
import { ClientConfigError, hookClientConfig, hookCommand } from './client-config.js';

const KEY = 'svc_0123456789abcdef';
const never = () => {
  throw new Error('the default base URL was read');
};

describe('hookClientConfig', () => {
  it('gives Cursor a beforeShellExecution hook and Claude Code a PreToolUse hook for Bash', () => {
    const command = hookCommand('a', KEY, 'https://svc.example', false);
    expect(hookClientConfig({ agent: 'a', key: KEY, baseUrl: 'https://svc.example' }, never)).toEqual({
      version: 1,
      hooks: { beforeShellExecution: [{ command, timeout: 20 }] },
    });
    const b = hookClientConfig({ agent: 'b', key: KEY, baseUrl: 'https://svc.example/' }, never);
    expect(b).toEqual({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: hookCommand('b', KEY, 'https://svc.example', false), timeout: 20 },
            ],
          },
        ],
      },
    });
  });

  it('posts stdin with the key to the agent endpoint, quoted for the shell it runs in', () => {
    expect(hookCommand('a', KEY, 'https://svc.example/', false)).toBe(
      `curl -sS --max-time 15 -X POST -H 'Authorization: Bearer ${KEY}' -H 'Content-Type: application/json' ` +
        `--data-binary @- 'https://svc.example/api/hooks/agent-a'`,
    );
    expect(hookCommand('b', KEY, 'http://localhost:3000', true)).toMatch(
      /^curl\.exe .* "Authorization: Bearer svc_\w+" .* "http:\/\/localhost:3000\/api\/hooks\/agent-b"$/,
    );
  });

  it('asks for the default base URL only when the request has none', () => {
    const config = hookClientConfig({ agent: 'a', key: KEY }, () => 'https://default.example');
    expect(JSON.stringify(config)).toContain('https://default.example/api/hooks/agent-a');
  });

  it.each([
    [{ agent: 'c', key: KEY }, 'agent', 'must be a or b'],
    [{ agent: 'a', key: 'nope' }, 'key', 'must be an svc_ API key'],
    [{ agent: 'a', key: undefined }, 'key', 'must be an svc_ API key'],
    [{ agent: 'b', key: "svc_x'y" }, 'key', 'must not contain quotes or spaces'],
    [{ agent: 'b', key: KEY, baseUrl: 'ftp://x' }, 'baseUrl', 'must be an http(s) URL'],
  ])('refuses %j, naming the field', (request, field, problem) => {
    let error: unknown;
    try {
      hookClientConfig(request, () => 'https://default.example');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ClientConfigError);
    expect(error).toMatchObject({ field, problem });
  });
});
