import { McpServer } from '@modelcontextprotocol/server';
import { VERSION } from '../version.js';
import { checkCommandTool } from './tools/check-command.js';
import { checkPackagesTool } from './tools/check-packages.js';
import type { ToolContext } from './tools/context.js';
import { hookConfigTool } from './tools/hook-config.js';
import { scanSecretsTool } from './tools/scan-secrets.js';
import { getScanTool, listScansTool, scanRepositoryTool } from './tools/scans.js';
import type { McpTool } from './tools/tool.js';

/** What the server says it is, in `initialize` answers and in each 2026-07-28 result's `_meta`. */
export const SERVER_INFO = { name: 'svc', version: VERSION };

const INSTRUCTIONS =
  'svc checks what a coding agent is about to do: scan_secrets before writing or committing text, ' +
  'check_command before running a shell line, check_packages before adding a dependency, ' +
  "hook_config to set up svc's install checks in the agent itself, and scan_repository then " +
  "get_scan to scan a public repository's whole history.";

/** The product's tools, in the order `tools/list` shows them. */
export const MCP_TOOLS: ReadonlyMap<string, McpTool> = new Map(
  [
    scanSecretsTool,
    checkCommandTool,
    checkPackagesTool,
    hookConfigTool,
    scanRepositoryTool,
    getScanTool,
    listScansTool,
  ].map((tool) => [tool.name, tool as unknown as McpTool]),
);

/**
 * One server for one request (the endpoint is stateless: an instance is never reused), with the
 * product's tools bound to the caller.
 */
export function createMcpServer(ctx: ToolContext): McpServer {
  const server = new McpServer(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  for (const tool of MCP_TOOLS.values()) {
    server.registerTool(tool.name, tool.config, (args: unknown) => tool.run(args as never, ctx));
  }
  return server;
}
