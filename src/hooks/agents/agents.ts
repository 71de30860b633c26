import type { Permission } from '../decide.js';

/**
 * The two agents' hook formats. Each knows where the command is in its agent's hook input and how
 * its agent wants the answer. What each field does in the agent is written down in the README
 * ("What the hooks answer, and what that changes in the agent").
 */
export interface AgentFormat {
  /**
   * The shell command in the hook input; OTHER_TOOL when the input is for a tool that runs no shell
   * command (nothing for svc to judge); null when it should hold a command and does not.
   */
  commandOf(input: unknown): string | typeof OTHER_TOOL | null;
  /**
   * svc's decision on a command it judged, with the message that explains it; `install` says whether
   * the line installs anything (a line that does not is let through without a word where the agent
   * allows that).
   */
  answer(permission: Permission, message: string, install: boolean): object;
  /**
   * The answer when the command could not be checked (a wrong key, an outage, a bad body): it never
   * stands in the command's way (spec 7.2) and says why.
   */
  notChecked(why: string): object;
}

/** A hook input for a tool other than the shell: not svc's to judge. */
export const OTHER_TOOL = Symbol('another tool');

const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** The message of every fail-open answer: what was not checked, and why (never the key). */
export const notCheckedMessage = (why: string) => `svc: command not checked: ${why}`;

/**
 * Cursor (`beforeShellExecution`): `{command, cwd, ...}` in, `{permission, user_message,
 * agent_message}` out. The spec's table: allow, deny or ask. Cursor's `allow` lets the command go on
 * to Cursor's own auto-run settings, which still decide whether the user is asked.
 */
export const agentA: AgentFormat = {
  commandOf(input) {
    const command = record(input).command;
    return typeof command === 'string' ? command : null;
  },
  answer(permission, message, _install) {
    return {
      permission,
      user_message: message,
      agent_message: message,
      // Cursor's documentation spells them in snake_case; early releases read camelCase: both are sent.
      userMessage: message,
      agentMessage: message,
    };
  },
  notChecked(why) {
    return agentA.answer('allow', notCheckedMessage(why), false);
  },
};

/**
 * Claude Code (`PreToolUse` on Bash): `{tool_name, tool_input: {command}, ...}` in. Only a
 * risky install gets a permission decision (`deny`, or `ask` in warn mode). Everything svc lets
 * through gets none: in Claude Code `permissionDecision: "allow"` approves the command without the
 * user's own prompt, which svc must never do, so the user's permission rules and prompts decide as
 * if svc were not installed. A note for the user (an install checked, or why a command was not)
 * goes in `systemMessage`, which Claude Code shows without deciding anything; a command that installs
 * nothing, or another tool's input, gets the empty answer `{}`.
 */
export const agentB: AgentFormat = {
  commandOf(input) {
    const body = record(input);
    if (typeof body.tool_name === 'string' && body.tool_name !== 'Bash') return OTHER_TOOL;
    const command = record(body.tool_input).command;
    return typeof command === 'string' ? command : null;
  },
  answer(permission, message, install) {
    // Nothing to say about `ls`: a note on every command would bury the ones that matter.
    if (permission === 'allow') return install ? { systemMessage: message } : {};
    return {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: permission,
        permissionDecisionReason: message,
      },
    };
  },
  notChecked(why) {
    return { systemMessage: notCheckedMessage(why) };
  },
};
