import type { RuleId } from './types.js';

/**
 * A finding's identity, and its ignore line: `<rule_id>:<commit_first_12_chars>:<path>:<line>`; for a
 * change not committed yet (svc scan --staged, commit null), `<rule_id>:staged:<path>:<line>`.
 */
export function fingerprintOf(ruleId: RuleId, commit: string | null, path: string, line: number): string {
  return `${ruleId}:${commit === null ? 'staged' : commit.slice(0, 12)}:${path}:${line}`;
}
