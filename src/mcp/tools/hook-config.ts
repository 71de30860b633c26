import * as z from 'zod';
import { API_KEY_PLACEHOLDER } from '../../hooks/agents/client-config.js';
import { hookSetupFor } from '../../services/hook-config.js';
import { runTool } from '../results.js';
import { convertedOnce } from '../schema.js';
import { defineTool } from './tool.js';

const input = convertedOnce(
  z.object({
    agent: z
      .enum(['a', 'b'])
      .describe('a: Cursor (~/.cursor/hooks.json); b: Claude Code (~/.claude/settings.json).'),
    windows: z.boolean().optional().describe('Write the command for Windows (curl.exe, double quotes).'),
  }),
);

const output = convertedOnce(
  z.object({
    agent: z.enum(['a', 'b']),
    file: z.string().describe('The settings file to merge config into.'),
    config: z.record(z.string(), z.unknown()),
    keyPlaceholder: z.literal(API_KEY_PLACEHOLDER),
  }),
);

export const hookConfigTool = defineTool({
  name: 'hook_config',
  config: {
    title: 'Hook configuration for an agent',
    description:
      "The configuration that makes an agent's shell commands go through svc's install checks (what " +
      '`svc hooks config` prints). Merge config into the file named; the user must replace ' +
      `${API_KEY_PLACEHOLDER} with their own API key themselves: never ask for the key or write it.`,
    inputSchema: input,
    outputSchema: output,
    annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
  },
  run: ({ agent, windows }, ctx) =>
    runTool('hook_config', ctx.logger, () => ({ ...hookSetupFor(agent, windows === true, ctx.baseUrl) })),
});
