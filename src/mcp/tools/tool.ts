import type { CallToolResult, StandardSchemaWithJSON, ToolAnnotations } from '@modelcontextprotocol/server';
import type { ToolContext } from './context.js';

/**
 * One MCP tool: what `tools/list` shows of it, and what a call runs. The endpoint registers every
 * tool on the SDK's server (server.ts) and also calls `run` itself for a plain `tools/call`
 * (direct-call.ts), so a tool is written once for both.
 */
export interface McpTool<Input extends StandardSchemaWithJSON = StandardSchemaWithJSON> {
  name: string;
  config: {
    title: string;
    description: string;
    inputSchema: Input;
    outputSchema: StandardSchemaWithJSON;
    annotations: ToolAnnotations;
  };
  /** Runs the call on arguments already validated by `inputSchema`; answers a tool error rather than throw. */
  run(args: StandardSchemaWithJSON.InferOutput<Input>, ctx: ToolContext): Promise<CallToolResult>;
}

/** Types `run`'s arguments from the tool's input schema. */
export function defineTool<Input extends StandardSchemaWithJSON>(tool: McpTool<Input>): McpTool<Input> {
  return tool;
}
