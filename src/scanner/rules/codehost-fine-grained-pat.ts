import type { Rule } from './rule.js';

// The real shape is 22 characters, `_`, 59 characters. Assembled from parts so this file never holds a
// contiguous token the scanner would report.
// Stryker disable all: sample values, used only by the samples below
const BODY = '11SVCSYNTH0Fixture0Pat' + '_' + 'SvcSynthetic0FineGrained0Pat0For0Scanner0Tests0Aa1Bb2Cc3Dd4';
const PAT = 'codehost_pat' + '_' + BODY;
/** GitHub's real prefix (contract section 1): the spec's `codehost_pat_` is its stand-in. */
const REAL = 'github_pat' + '_' + BODY;
// Stryker restore all

export const codehostFineGrainedPat: Rule = {
  id: 'codehost-fine-grained-pat',
  title: 'GitHub fine-grained personal access token',
  description:
    'A GitHub fine-grained personal access token: github_pat_ (or codehost_pat_) followed by 82 characters.',
  remediation: "Revoke it at https://github.com/settings/personal-access-tokens (the owner's account).",
  keywords: ['codehost_pat_', 'github_pat_'],
  // Exactly 82 of [A-Za-z0-9_], and not part of a longer run of that set on either side.
  pattern: /(?<![A-Za-z0-9_])(?<secret>(?:codehost|github)_pat_[A-Za-z0-9_]{82})(?![A-Za-z0-9_])/g,
  // The rule's test data (rules.test.ts runs every line): a mutant of a sample changes a test,
  // not the scanner, so Stryker leaves the samples alone (docs/mutation-testing.md).
  // Stryker disable all
  samples: {
    positives: [
      `CODEHOST_PAT=${PAT}`,
      `  token: "${PAT}"`,
      `{"auth": "${PAT}", "scopes": ["repo"]}`,
      `const client = new Client({ auth: '${PAT}' });`,
      `gh = Codehost(login_or_token=os.environ.get("PAT", "${PAT}"))`,
      `export GH_TOKEN=${PAT}`,
      `git push https://bot:${PAT}@codehost.test/org/repo.git HEAD`,
      `!function(){var t="${PAT}";fetch(u,{headers:{a:t}})}();`,
      `GITHUB_TOKEN=${REAL}`,
      `  token: "${REAL}"`,
    ],
    negatives: [
      `CODEHOST_PAT=${PAT.slice(0, -1)}`,
      `CODEHOST_PAT=${PAT}9`,
      `CODEHOST_PAT=${PAT}_`,
      `CODEHOST_PAT=my_${PAT}`,
      `CODEHOST_PAT=${PAT.slice(0, 40)}-${PAT.slice(41)}`,
      `CODEHOST_PAT=${'CODEHOST_PAT' + '_' + BODY}`,
      `CODEHOST_PAT=${'codehost_pat' + '_' + BODY.slice(0, 60) + 'REDACTED' + BODY.slice(68)}`,
      'Fine-grained tokens begin with codehost_pat_ and are 95 characters long.',
      `GITHUB_TOKEN=${REAL.slice(0, -1)}`,
      `GITHUB_TOKEN=${REAL}9`,
      `GITHUB_TOKEN=x${REAL}`,
      `GITHUB_TOKEN=${'GITHUB_PAT' + '_' + BODY}`,
    ],
  },
  // Stryker restore all
};
