import type { Permission } from '../decide.js';

/**
 * The two agents' hook formats. Each knows where the command is in its agent's hook
 * input and how its agent wants the answer.
 */
export interface AgentFormat {
  /** The shell command in the hook input, or null when the input carries none (not a shell tool). */
  commandOf(input: unknown): string | null;
  answer(permission: Permission, message: string): unknown;
}

const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Agent A (Cursor, `beforeShellExecution`): `{command}` in, `{permission, user_message, agent_message}` out. */
export const agentA: AgentFormat = {
  commandOf(input) {
    const command = record(input).command;
    return typeof command === 'string' ? command : null;
  },
  answer(permission, message) {
    return {
      permission,
      user_message: message,
      agent_message: message,
      // Both spellings: the agent has read each at some version.
      userMessage: message,
      agentMessage: message,
    };
  },
};

/** Agent B (Claude Code, `PreToolUse` for Bash): `{tool_name, tool_input: {command}}` in. */
export const agentB: AgentFormat = {
  commandOf(input) {
    const body = record(input);
    if (typeof body.tool_name === 'string' && body.tool_name !== 'Bash') return null;
    const command = record(body.tool_input).command;
    return typeof command === 'string' ? command : null;
  },
  answer(permission, message) {
    return {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: permission,
        permissionDecisionReason: message,
      },
    };
  },
};
