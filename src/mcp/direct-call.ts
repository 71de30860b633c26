import {
  type CallToolResult,
  classifyInboundRequest,
  isJSONRPCRequest,
  isJsonContentType,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { MCP_TOOLS, SERVER_INFO } from './server.js';
import type { ToolContext } from './tools/context.js';

/** The stateless revision the SDK's modern handler serves. */
const MODERN_REVISION = '2026-07-28';

/** The request headers the MCP transports look at. */
export interface McpHeaders {
  accept?: string;
  contentType?: string;
  protocolVersion?: string;
  mcpMethod?: string;
  mcpName?: string;
}

/**
 * The JSON-RPC answer to a plain `tools/call`, computed without the SDK's per-request server and
 * transport; null for anything the SDK must answer itself.
 *
 * Why: a stateless endpoint builds a server, registers every tool and connects a transport for each
 * request, and for a call that takes a millisecond of our own work that doubled its CPU (bench:mcp).
 * A call is the one message agents send over and over; everything else (initialize, tools/list,
 * notifications, batches) stays with the SDK.
 *
 * What keeps the two paths the same: the request is classified by the SDK's own ladder
 * (`classifyInboundRequest`: era, envelope) and, for 2026-07-28, its headers must name exactly what
 * the body does; anything else, or that is not a single request for a known tool with arguments its
 * input schema accepts, goes to the SDK, which then answers (or refuses) it as it always did. The tool itself is the very `run` the SDK server calls,
 * and its structured output is checked against the output schema as the SDK does. mcp.test.ts
 * holds the two paths' answers equal for every tool and both revisions.
 */
export async function directToolCall(
  body: unknown,
  headers: McpHeaders,
  ctx: ToolContext,
): Promise<Record<string, unknown> | null> {
  if (!acceptsJsonAndStream(headers.accept) || !isJsonContentType(headers.contentType ?? '')) return null;
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: headers.protocolVersion,
    mcpMethodHeader: headers.mcpMethod,
    mcpNameHeader: headers.mcpName,
    body,
  });
  // The SDK's modern handler checks more than the ladder: the revision it serves, and that the
  // Mcp-Method and Mcp-Name headers name what the body does. Only the exact match comes here.
  const modern =
    outcome.kind === 'modern' &&
    outcome.messageKind === 'request' &&
    outcome.classification.revision === MODERN_REVISION &&
    headers.protocolVersion === MODERN_REVISION &&
    headers.mcpMethod === 'tools/call' &&
    headers.mcpName === (outcome.message.params as { name?: unknown } | undefined)?.name;
  const legacy =
    outcome.kind === 'legacy' &&
    outcome.reason === 'no-claim' &&
    (headers.protocolVersion === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(headers.protocolVersion));
  if ((!modern && !legacy) || !isJSONRPCRequest(body) || body.method !== 'tools/call') return null;

  // A tools/call without params is the SDK's to refuse (found by app.property.test.ts).
  const params = (body.params ?? {}) as { name?: unknown; arguments?: unknown };
  const tool = typeof params.name === 'string' ? MCP_TOOLS.get(params.name) : undefined;
  const args = params.arguments;
  if (tool === undefined || typeof args !== 'object' || args === null || Array.isArray(args)) return null;
  const validated = await tool.config.inputSchema['~standard'].validate(args);
  if (validated.issues !== undefined) return null;

  const result = await checkedOutput(tool.name, await tool.run(validated.value as never, ctx), ctx);
  return modern
    ? {
        result: { ...result, resultType: 'complete', _meta: { [SERVER_INFO_META_KEY]: SERVER_INFO } },
        jsonrpc: '2.0',
        id: body.id,
      }
    : { result, jsonrpc: '2.0', id: body.id };
}

/** Both answer forms must be acceptable, as the SDK's transports require of a POST. */
function acceptsJsonAndStream(accept: string | undefined): boolean {
  const types = accept ?? '';
  return types.includes('application/json') && types.includes('text/event-stream');
}

/**
 * The result, unless its structured content breaks the tool's output schema: then a tool error, as
 * the SDK answers (a bug of ours, so it is logged; the content itself is not, it may hold findings).
 */
async function checkedOutput(
  name: string,
  result: CallToolResult,
  ctx: ToolContext,
): Promise<CallToolResult> {
  if (result.isError) return result;
  const tool = MCP_TOOLS.get(name)!;
  const checked = await tool.config.outputSchema['~standard'].validate(result.structuredContent);
  if (checked.issues === undefined) return result;
  ctx.logger.error({ tool: name }, 'mcp tool output does not match its schema');
  return {
    content: [{ type: 'text', text: `Output validation error: Invalid structured content for tool ${name}` }],
    isError: true,
  };
}
