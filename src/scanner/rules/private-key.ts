import type { Rule } from './rule.js';

// Headers are assembled from parts so this file never holds a contiguous header the scanner would report.
// Stryker disable all: sample helpers, used only by the samples below
const B = '-----BEGIN ';
const header = (type: string) => B + type + 'PRIVATE KEY-----';
// Stryker restore all

export const privateKey: Rule = {
  id: 'private-key',
  title: 'Private key',
  description:
    'A private key block: a -----BEGIN ... PRIVATE KEY----- header whose key type is RSA, EC, DSA, ' +
    'OPENSSH, PGP or absent. The masked value is the key type.',
  uncheckable: 'no neutral read-only check exists for a private key',
  remediation:
    'Replace the key pair: make a new one, put its public half where the old was trusted (authorized_keys, ' +
    'a certificate, a deploy key), and remove the old public half everywhere.',
  keywords: ['private key'],
  // The listed types or none, plus the PGP armour header (`... KEY BLOCK-----`, PGP only).
  // Case-sensitive: PEM and armour headers are upper case by definition.
  pattern:
    /(?<secret>-----BEGIN (?:(?:(?<type>RSA|EC|DSA|OPENSSH) )?PRIVATE KEY|(?<pgp>PGP) PRIVATE KEY(?: BLOCK)?)-----)/g,
  // The masked value: the key type from the header stands in for the first four characters.
  mask: (_secret, match) => match.groups?.type ?? match.groups?.pgp ?? 'PRIVATE KEY',
  // The rule's test data (rules.test.ts runs every line): a mutant of a sample changes a test,
  // not the scanner, so Stryker leaves the samples alone (docs/mutation-testing.md).
  // Stryker disable all
  samples: {
    positives: [
      header('RSA '),
      header('EC '),
      header('DSA '),
      header('OPENSSH '),
      header(''),
      B + 'PGP PRIVATE KEY BLOCK-----',
      header('PGP '),
      `  "private_key": "${header('')}\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n",`,
      `ssh_key: "${header('OPENSSH ')}\\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU="`,
      `const pem = '${header('EC ')}\\n' + body + '\\n-----END EC PRIVATE KEY-----';`,
    ],
    negatives: [
      header('ENCRYPTED '),
      B + 'PUBLIC KEY-----',
      B + 'RSA PUBLIC KEY-----',
      B + 'CERTIFICATE-----',
      B + 'PGP PUBLIC KEY BLOCK-----',
      header('DH '),
      B + 'RSA PRIVATE KEY BLOCK-----',
      header('RSA ').toLowerCase(),
      '-----END RSA PRIVATE KEY-----',
      'Paste your private key below; it never leaves this machine.',
    ],
  },
  // Stryker restore all
};
