import type { Rule } from './rule.js';

// Assembled from parts so this file never holds a contiguous key the scanner would report.
// Stryker disable all: sample values, used only by the samples below
const BODY = 'SySvc-Synthetic_Web0Api0Key0Aa1Bb2C';
const KEY = 'AI' + 'za' + BODY;
// Stryker restore all

export const webapiKey: Rule = {
  id: 'webapi-key',
  title: 'Google API key',
  description: 'A Google API key: AIza followed by 35 characters.',
  uncheckable: 'no neutral read-only check exists for this provider',
  remediation:
    'Regenerate or delete it at https://console.cloud.google.com/apis/credentials, and restrict the new ' +
    'one to its APIs and callers.',
  keywords: ['aiza'],
  // Exactly 35 of [A-Za-z0-9_-], and not part of a longer run of that set on either side.
  pattern: /(?<![A-Za-z0-9_-])(?<secret>AIza[A-Za-z0-9_-]{35})(?![A-Za-z0-9_-])/g,
  // The rule's test data (rules.test.ts runs every line): a mutant of a sample changes a test,
  // not the scanner, so Stryker leaves the samples alone (docs/mutation-testing.md).
  // Stryker disable all
  samples: {
    positives: [
      `MAPS_API_KEY=${KEY}`,
      `  browserKey: ${KEY}`,
      `{"current_key": "${KEY}", "project": "svc-synthetic"}`,
      `const firebaseConfig = { apiKey: "${KEY}", authDomain: "svc.test" };`,
      `gmaps = Client(key='${KEY}')`,
      `export WEBAPI_KEY=${KEY}`,
      `<script src="https://maps.webapi.test/js?key=${KEY}&callback=init"></script>`,
      `var k="${KEY}";loadMap(k)`,
    ],
    negatives: [
      `MAPS_API_KEY=${KEY.slice(0, -1)}`,
      `MAPS_API_KEY=${KEY}x`,
      `MAPS_API_KEY=${KEY}-`,
      `MAPS_API_KEY=_${KEY}`,
      `MAPS_API_KEY=${'AI' + 'ZA' + BODY}`,
      `MAPS_API_KEY=${'AI' + 'za' + BODY.slice(0, 10) + '.' + BODY.slice(11)}`,
      `MAPS_API_KEY=${'AI' + 'za' + 'Sy-DUMMY-KEY-FOR-LOCAL-DEV-00000000'}`,
      'Web API keys begin with AIza and are 39 characters long.',
    ],
  },
  // Stryker restore all
};
