import type { Rule } from './rule.js';

// Assembled from parts so this file never holds a contiguous token the scanner would report.
// Stryker disable all: sample values, used only by the samples below
const BODY = '1234567890123-4567890123456-SvcSyntheticChat0Token';
const BOT = 'xoxb' + '-' + BODY;
const USER = 'xoxp' + '-' + BODY;
const APP = 'xoxa' + '-2-' + BODY;
const REFRESH = 'xoxr' + '-' + BODY;
// Stryker restore all

export const chatToken: Rule = {
  id: 'chat-token',
  title: 'Slack token',
  description: 'A Slack token: xoxb-, xoxa-, xoxp-, xoxr- or xoxs- followed by at least 10 characters.',
  remediation:
    "Revoke it: reinstall or rotate the app's tokens at https://api.slack.com/apps (OAuth & Permissions), " +
    'or revoke a user token with auth.revoke.',
  keywords: ['xoxb-', 'xoxa-', 'xoxp-', 'xoxr-', 'xoxs-'],
  // At least 10 of [A-Za-z0-9-], greedy, so the whole run is the token; a token glued to a
  // preceding run of that set is part of something else.
  pattern: /(?<![A-Za-z0-9-])(?<secret>xox[abprs]-[A-Za-z0-9-]{10,})/g,
  // The rule's test data (rules.test.ts runs every line): a mutant of a sample changes a test,
  // not the scanner, so Stryker leaves the samples alone (docs/mutation-testing.md).
  // Stryker disable all
  samples: {
    positives: [
      `CHAT_BOT_TOKEN=${BOT}`,
      `  bot_token: "${USER}"`,
      `{"token": "${APP}", "team": "T0123"}`,
      `const app = new App({ token: '${BOT}', signingSecret });`,
      `client = WebClient(token=os.environ.get("CHAT_TOKEN", "${REFRESH}"))`,
      `export CHAT_TOKEN=${'xoxs' + '-' + BODY}`,
      `curl -H "Authorization: Bearer ${BOT}" https://chat.test/api/auth.test`,
      `var c={t:"${BOT}",ch:"#ops"};c.post()`,
      `CHAT_TOKEN=${'xoxb' + '-' + '1234567890'}`,
    ],
    negatives: [
      `CHAT_TOKEN=${'xoxb' + '-' + '123456789'}`,
      `CHAT_TOKEN=${'xoxc' + '-' + BODY}`,
      `CHAT_TOKEN=${'xoxb' + '_' + BODY}`,
      `CHAT_TOKEN=${('xoxb' + '-' + BODY).toUpperCase()}`,
      `CHAT_TOKEN=a${BOT}`,
      `CHAT_TOKEN=-${BOT}`,
      `CHAT_TOKEN=${'xoxb' + '-' + '1234567890-Example-Token'}`,
      'Bot tokens start with xoxb- followed by numbers.',
    ],
  },
  // Stryker restore all
};
