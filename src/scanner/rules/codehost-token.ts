import type { Rule } from './rule.js';

// Assembled from parts so this file never holds a contiguous token the scanner would report.
// Stryker disable all: sample values, used only by the samples below
const BODY = 'SvcSynthetic0Codehost0Token0Aa11Bb22';
const PAT = 'ghp' + '_' + BODY;
const OAUTH = 'gho' + '_' + BODY;
const USER = 'ghu' + '_' + BODY;
const REFRESH = 'ghr' + '_' + BODY;
const SERVER = 'ghs' + '_' + BODY;
// Stryker restore all

export const codehostToken: Rule = {
  id: 'codehost-token',
  title: 'GitHub token',
  description: 'A GitHub token: ghp_, gho_, ghu_, ghs_ or ghr_ followed by 36 characters.',
  remediation:
    'Revoke it: a personal token at https://github.com/settings/tokens, an OAuth or GitHub App token in ' +
    "the app's settings (https://github.com/settings/applications).",
  keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'],
  // Exactly 36 of [A-Za-z0-9], and not part of a longer run of that set on either side.
  pattern: /(?<![A-Za-z0-9])(?<secret>gh[pousr]_[A-Za-z0-9]{36})(?![A-Za-z0-9])/g,
  // The rule's test data (rules.test.ts runs every line): a mutant of a sample changes a test,
  // not the scanner, so Stryker leaves the samples alone (docs/mutation-testing.md).
  // Stryker disable all
  samples: {
    positives: [
      `GITHUB_TOKEN=${PAT}`,
      `git clone https://x-access-token:${SERVER}@codehost.test/org/repo.git`,
      `    token: "${OAUTH}"`,
      `const octokit = new Octokit({ auth: '${USER}' });`,
      `headers = {"Authorization": "Bearer ${REFRESH}"}`,
      `export GH_TOKEN=${PAT}`,
      `{"codehost_token":"${PAT}","org":"acme"}`,
      `fetch(u,{headers:{authorization:"token ${PAT}"}}).then(r=>r.json())`,
    ],
    negatives: [
      `GITHUB_TOKEN=${PAT.slice(0, -1)}`,
      `GITHUB_TOKEN=${PAT}Z`,
      `GITHUB_TOKEN=x${PAT}`,
      `GITHUB_TOKEN=${'ghx' + '_' + BODY}`,
      `GITHUB_TOKEN=${('ghp' + '_' + BODY).toUpperCase()}`,
      `GITHUB_TOKEN=${'ghp' + '_' + BODY.slice(0, 18) + '-' + BODY.slice(18)}`,
      `GITHUB_TOKEN=${'ghp' + '_' + 'ExampleExampleExampleExampleExample1'}`,
      'Classic tokens start with ghp_ and carry 36 more characters.',
    ],
  },
  // Stryker restore all
};
