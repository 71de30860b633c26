import { McpServer } from '@modelcontextprotocol/server';
import { VERSION } from '../version.js';
import { registerCheckCommand } from './tools/check-command.js';
import { registerCheckPackages } from './tools/check-packages.js';
import type { ToolContext } from './tools/context.js';
import { registerHookConfig } from './tools/hook-config.js';
import { registerScanSecrets } from './tools/scan-secrets.js';
import { registerScanTools } from './tools/scans.js';

const INSTRUCTIONS =
  'svc checks what a coding agent is about to do: scan_secrets before writing or committing text, ' +
  'check_command before running a shell line, check_packages before adding a dependency, ' +
  "hook_config to set up svc's install checks in the agent itself, and scan_repository then " +
  "get_scan to scan a public repository's whole history.";

/**
 * One server for one request (the endpoint is stateless: an instance is never reused), with the
 * product's tools bound to the caller.
 */
export function createMcpServer(ctx: ToolContext): McpServer {
  const server = new McpServer(
    { name: 'svc', version: VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  registerScanSecrets(server, ctx);
  registerCheckCommand(server, ctx);
  registerCheckPackages(server, ctx);
  registerHookConfig(server, ctx);
  registerScanTools(server, ctx);
  return server;
}
