import type { RuleId } from './types.js';

/** A finding's identity, and its ignore line: `<rule_id>:<commit_first_12_chars>:<path>:<line>`. */
export function fingerprintOf(ruleId: RuleId, commit: string, path: string, line: number): string {
  return `${ruleId}:${commit.slice(0, 12)}:${path}:${line}`;
}
