import { API_KEY_PLACEHOLDER } from '../hooks/agents/client-config.js';

/** One agent's MCP client setup: where it goes, what to paste, and the one-line command where there is one. */
export interface McpClientSetup {
  /** The agent, as users know it. */
  title: string;
  /** The file the JSON goes into. */
  file: string;
  /** The JSON for that file, with the key placeholder. */
  json: string;
  /** A command that registers the server instead of editing the file, or null. */
  command: string | null;
}

const endpoint = (baseUrl: string) => `${baseUrl.replace(/\/+$/, '')}/mcp`;
const bearer = `Bearer ${API_KEY_PLACEHOLDER}`;

/**
 * The MCP configurations of both agents for this service (the README's, with its URL): Cursor reads
 * `url` and `headers`; Claude Code wants `"type": "http"` for a remote server (else it takes the entry
 * for a local command) and has `claude mcp add` for the same thing.
 */
export function mcpClientSetups(baseUrl: string): { a: McpClientSetup; b: McpClientSetup } {
  const url = endpoint(baseUrl);
  const entry = (extra: Record<string, string>) =>
    JSON.stringify({ mcpServers: { svc: { ...extra, url, headers: { Authorization: bearer } } } }, null, 2);
  return {
    a: {
      title: 'Cursor MCP server',
      file: '~/.cursor/mcp.json (or .cursor/mcp.json in a project, kept out of git)',
      json: entry({}),
      command: null,
    },
    b: {
      title: 'Claude Code MCP server',
      file: '.mcp.json in a project (kept out of git), or run the command',
      json: entry({ type: 'http' }),
      command: `claude mcp add --transport http svc ${url} --header "Authorization: ${bearer}"`,
    },
  };
}
