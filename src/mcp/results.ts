import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import { DomainError, loggableName } from '../services/errors.js';
import { DatabaseUnavailableError } from '../storage/index.js';

/** A tool's answer: the object as structured content, and the same JSON as text for older clients. */
export function toolResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/**
 * The one map from an error to a tool error: a result with `isError` and one line a model can act
 * on. A domain error's message is safe to show; anything else is a bug, logged by name only (a
 * message or stack could carry a document's text) and answered as an internal error.
 */
export function toolErrorOf(err: unknown, tool: string, logger: Logger): CallToolResult {
  let line: string;
  if (err instanceof DomainError) {
    line = err.message;
  } else if (err instanceof DatabaseUnavailableError) {
    line = 'the service cannot reach its database; retry in a few seconds';
  } else {
    logger.error({ tool, error: loggableName(err) }, 'mcp tool failed');
    line = 'internal error';
  }
  return { content: [{ type: 'text', text: `${tool}: ${line.split('\n')[0]}` }], isError: true };
}

/** Runs a tool's body, turning whatever it throws into a tool error. */
export async function runTool(
  tool: string,
  logger: Logger,
  body: () => Promise<Record<string, unknown>> | Record<string, unknown>,
): Promise<CallToolResult> {
  try {
    return toolResult(await body());
  } catch (e) {
    return toolErrorOf(e, tool, logger);
  }
}
