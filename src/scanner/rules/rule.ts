import type { RuleId } from '../types.js';

/**
 * One detection rule. Rules are data plus their own samples and the words every report shows about
 * them: this file is their single source (reports, SARIF rule descriptors and the credential checks
 * read it). `rules.test.ts` runs every sample, so adding a rule means adding a file here
 * (docs/adding-a-rule.md).
 */
export interface Rule {
  id: RuleId;
  /** What the rule finds, as every report names it ("AWS access key ID"). */
  title: string;
  /** What exactly it matches, in a sentence or two (SARIF's `fullDescription`). */
  description: string;
  /**
   * Why a found secret can never be checked against its provider (shown as the finding's
   * verification reason); absent when `src/verify` has a read-only check for the rule.
   */
  uncheckable?: string;
  /**
   * What to do about a found one, at its provider (reports show it beside each finding): removing it
   * from history does not make it safe, since it was public from the first clone.
   */
  remediation: string;
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

/** What to do about any finding, whatever its rule (SARIF's `help`). */
export const FINDING_HELP =
  'A secret committed to git stays in the history after it is deleted from the files: revoke or rotate ' +
  'the credential at its provider, then remove it from the code. Only findings in code fail the scan. ' +
  'If the finding is a false positive, add its ignore line (the fingerprint in the result message) to ' +
  '.svcignore on the default branch.';
