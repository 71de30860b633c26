import * as z from 'zod';
import { LOCATIONS, RULE_IDS } from '../../scanner/index.js';
import { scanDocuments, TEXT_SCAN_LIMITS } from '../../services/text-scan.js';
import { runTool } from '../results.js';
import { convertedOnce } from '../schema.js';
import { defineTool } from './tool.js';

const input = convertedOnce(
  z.object({
    documents: z
      .array(
        z.object({
          // A character bound first (cheap, and a UTF-8 byte is at least one character); the service
          // then counts the bytes.
          content: z
            .string()
            .max(TEXT_SCAN_LIMITS.documentBytes, { error: 'a document is over 1 MiB' })
            .describe('The full text of the file or change, as it will be written.'),
          filename: z
            .string()
            .max(1024)
            .optional()
            .describe(
              'The path the text will have in the repository, e.g. src/config.ts. It decides the location ' +
                'class: tests, examples and docs are reported but do not fail; without one the text counts as code.',
            ),
        }),
      )
      .min(1, { error: 'give at least one document' })
      .max(TEXT_SCAN_LIMITS.documents, { error: `at most ${TEXT_SCAN_LIMITS.documents} documents per call` })
      .describe(`Up to ${TEXT_SCAN_LIMITS.documents} documents of at most 1 MiB each.`),
  }),
);

const output = convertedOnce(
  z.object({
    findings: z.array(
      z.object({
        ruleId: z.enum(RULE_IDS),
        document: z.number().int().describe('Index of the document in the request.'),
        filename: z.string().nullable(),
        line: z.number().int(),
        location: z.enum(LOCATIONS),
        maskedValue: z.string().describe('The first four characters of the secret, then asterisks.'),
      }),
    ),
    passed: z
      .boolean()
      .describe('False when a secret is located in code: do not commit until it is removed.'),
    total: z.number().int().describe('How many findings there are in all, listed or not.'),
    truncated: z
      .boolean()
      .describe(
        `True when there are more than ${TEXT_SCAN_LIMITS.findings} findings: only the first are listed.`,
      ),
  }),
);

export const scanSecretsTool = defineTool({
  name: 'scan_secrets',
  config: {
    title: 'Scan text for secrets',
    description:
      'Scan text you are about to write or commit for hard-coded secrets (cloud keys, code-host and chat ' +
      'tokens, payment keys, private keys, generic passwords) with the same rules as a repository scan. ' +
      'Pass each file with its repository path as filename. If passed is false, move the secret out of ' +
      'the code (an environment variable or a secret store) before committing. At most ' +
      `${TEXT_SCAN_LIMITS.findings} findings are listed (then truncated is true and total says how many). Values come back masked; ` +
      'nothing is verified against any provider and nothing is stored.',
    inputSchema: input,
    outputSchema: output,
    annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
  },
  run: ({ documents }, ctx) =>
    runTool('scan_secrets', ctx.logger, async () => ({ ...(await scanDocuments(documents)) })),
});
