import * as z from 'zod';
import { commandReport } from '../../services/hook-checks.js';
import { HOOK_MODES } from '../../services/vocabulary.js';
import { runTool } from '../results.js';
import { convertedOnce } from '../schema.js';
import { packageVerdict } from './package-verdict.js';
import { defineTool } from './tool.js';

/** A shell line longer than this is not a command an agent types. */
const MAX_COMMAND_LENGTH = 64 * 1024;

const input = convertedOnce(
  z.object({
    command: z
      .string()
      .min(1, { error: 'give the shell line to check' })
      .max(MAX_COMMAND_LENGTH, { error: 'the command is over 64 KiB' })
      .describe('The shell line you are about to run, exactly as you would run it.'),
    mode: z
      .enum(HOOK_MODES)
      .optional()
      .describe("block (risky installs are denied) or warn (asked about); a team's own mode always wins."),
  }),
);

const output = convertedOnce(
  z.object({
    decision: z.enum(['allow', 'deny', 'ask']),
    installs: z.array(packageVerdict.omit({ unjudged: true })),
    skipped: z.array(z.object({ spec: z.string(), why: z.string() })),
    message: z.string(),
    mode: z.enum(HOOK_MODES).describe('The mode that was applied.'),
  }),
);

export const checkCommandTool = defineTool({
  name: 'check_command',
  config: {
    title: 'Check a shell command before running it',
    description:
      'Check a shell line before you run it, as the svc agent hooks would: package installs (npm, yarn, ' +
      'pnpm, bun, pip, uv, poetry, cargo, go, dotnet...) are checked for known malware, typosquats, names ' +
      'that do not exist and very new packages or versions. decision allow: svc found nothing risky (your ' +
      'usual approval of commands still applies; svc approves nothing); deny: do not run it, tell the user why ' +
      '(message); ask: show the user the message and run it only if they confirm.',
    inputSchema: input,
    outputSchema: output,
    annotations: { readOnlyHint: true, openWorldHint: true },
  },
  run: ({ command, mode }, ctx) =>
    runTool('check_command', ctx.logger, async () => {
      // No agent: a question asked over MCP is not a command that ran, so it is not kept in the
      // user's hook history (the hook records it if the agent then runs the line).
      const decision = await ctx.hookChecks.check(ctx.principal, { command, requestedMode: mode });
      return { ...commandReport(decision), mode: decision.mode };
    }),
});
