import type { RuleId } from '../types.js';

/**
 * One detection rule (spec 2.4 as read by contract section 1). Rules are data plus their own samples;
 * `rules.test.ts` runs every sample, so adding a rule means adding a file here (docs/adding-a-rule.md).
 */
export interface Rule {
  id: RuleId;
  /** What the rule finds, for reports ("Cloud access key ID"). */
  title: string;
  /**
   * Literal substrings, lowercase, at least one of which appears (case-insensitively) in every line
   * the rule can match. They build the prefilter that keeps the hot loop away from the regexes.
   */
  keywords: readonly string[];
  /** A global (`g`) regex; the named group `secret` captures the secret value. */
  pattern: RegExp;
  /** A further test on the captured value (entropy for `generic-secret`). */
  accept?(secret: string): boolean;
  /** The masked value shown in reports; default: first four characters then asterisks. */
  mask?(secret: string, match: RegExpExecArray): string;
  /** Lines that must yield exactly one finding of this rule, and lines that must yield none. */
  samples: { positives: readonly string[]; negatives: readonly string[] };
}

/** One secret found in one line. `start`/`end` are the secret's offsets in the line. */
export interface SecretMatch {
  ruleId: RuleId;
  secret: string;
  maskedValue: string;
  start: number;
  end: number;
}
