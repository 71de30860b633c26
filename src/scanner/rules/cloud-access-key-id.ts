import type { Rule } from './rule.js';

// Samples are assembled from parts so this file never holds a contiguous key the scanner would report.
// Stryker disable all: sample values, used only by the samples below
const KEY = 'AKIA' + 'SVCSYNTHETIC0001';
const STS = 'ASIA' + 'SVCSYNTHETIC0002';
// Stryker restore all

export const cloudAccessKeyId: Rule = {
  id: 'cloud-access-key-id',
  title: 'AWS access key ID',
  description:
    'An AWS access key ID: AKIA or ASIA followed by 16 uppercase letters or digits. ' +
    'It cannot be checked without the secret half of the key pair, so it is always unchecked.',
  uncheckable: 'cannot be checked: the secret half of the key pair is needed',
  remediation:
    'Deactivate and delete the key pair in AWS IAM (https://console.aws.amazon.com/iam/home#/security_credentials, ' +
    "or the user's Security credentials tab) after giving its user a new one; check CloudTrail for its use.",
  keywords: ['akia', 'asia'],
  // [A-Z0-9] is the id's own character set, so a longer run of it is not a key id.
  pattern: /(?<![A-Z0-9])(?<secret>(?:AKIA|ASIA)[A-Z0-9]{16})(?![A-Z0-9])/g,
  // The rule's test data (rules.test.ts runs every line): a mutant of a sample changes a test,
  // not the scanner, so Stryker leaves the samples alone (docs/mutation-testing.md).
  // Stryker disable all
  samples: {
    positives: [
      `AWS_ACCESS_KEY_ID=${KEY}`,
      `  aws_access_key_id: ${KEY}`,
      `{"AccessKeyId": "${STS}", "Expiration": "2024-05-01T12:00:00Z"}`,
      `const creds = { accessKeyId: '${KEY}', region: 'eu-west-1' };`,
      `session = boto3.Session(aws_access_key_id="${KEY}")`,
      `export AWS_ACCESS_KEY_ID=${STS}`,
      `curl "https://bucket.s3.amazonaws.com/a.txt?X-Amz-Credential=${KEY}%2F20240501%2Fus-east-1"`,
      `var e={k:"${KEY}",r:"us-east-1"};function f(){return e.k}`,
    ],
    negatives: [
      `AWS_ACCESS_KEY_ID=${KEY.slice(0, -1)}`,
      `AWS_ACCESS_KEY_ID=${KEY}7`,
      `id=X${KEY}`,
      `aws_access_key_id = ${KEY.toLowerCase()}`,
      `aws_access_key_id = AKIA${'svcSynthetic0001'}`,
      `aws_access_key_id = AKIA_${'SVCSYNTHETIC001'}`,
      `aws_access_key_id = ${'AKIA' + 'IOSFODNN7EXAMPLE'}`,
      `aws_access_key_id = ${'AKIA' + 'REDACTEDREDACTED'}`,
      `aws_access_key_id = ${'ASIA' + 'PLACEHOLDER00001'}`,
      'regions: ASIA PACIFIC, EUROPE, AMERICAS',
    ],
  },
  // Stryker restore all
};
