import * as z from 'zod';
import { presentScan, presentScanSummary } from '../../server/scan-view.js';
import { SCAN_LIST_LIMIT } from '../../services/scans.js';
import { runTool } from '../results.js';
import { convertedOnce } from '../schema.js';
import { defineTool } from './tool.js';

const STATUSES = ['queued', 'running', 'done', 'failed', 'canceled'] as const;

const scanFields = {
  id: z.string(),
  url: z.string(),
  status: z.enum(STATUSES),
  progress: z.object({ done: z.number(), total: z.number() }).describe('Commits scanned of the total.'),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  error: z.string().nullable().describe('Why a failed scan failed.'),
  summary: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('Once done: total, failing (in code, not ignored), byLocation, ignored.'),
};

const startInput = convertedOnce(
  z.object({
    url: z
      .string()
      .describe(
        'The repository, https://HOST/OWNER/NAME, on a host the service allows (github.com, gitlab.com).',
      ),
  }),
);
const startOutput = convertedOnce(
  z.object({ scanId: z.string(), status: z.enum(STATUSES) }).describe('Follow it with get_scan.'),
);
const getInput = convertedOnce(z.object({ scanId: z.string().min(1).max(100) }));
const getOutput = convertedOnce(
  z.object({
    ...scanFields,
    findings: z
      .array(z.record(z.string(), z.unknown()))
      .nullable()
      .describe(
        'Once done: ruleId, commit, path, line, location, maskedValue, fingerprint (the ignore line), ignored, author, date.',
      ),
  }),
);
const listInput = convertedOnce(
  z.object({
    limit: z
      .number()
      .int()
      .min(1)
      .max(SCAN_LIST_LIMIT)
      .optional()
      .describe(`At most ${SCAN_LIST_LIMIT}; 20 if not given.`),
  }),
);
const listOutput = convertedOnce(z.object({ scans: z.array(z.object(scanFields)) }));

/** scan_repository, get_scan and list_scans: the dashboard's scans of public repositories. */
export const scanRepositoryTool = defineTool({
  name: 'scan_repository',
  config: {
    title: 'Scan a public repository for committed secrets',
    description:
      "Start a scan of a public repository's whole git history (every commit, every branch) for committed " +
      'secrets: API keys, tokens, private keys. It runs in the background (seconds to minutes): poll ' +
      'get_scan with the scanId until status is done or failed. Private repositories fail as not found. ' +
      'At most 5 starts a minute.',
    inputSchema: startInput,
    outputSchema: startOutput,
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
  },
  run: ({ url }, ctx) =>
    runTool('scan_repository', ctx.logger, async () => {
      await ctx.allowScanStart();
      const scan = await ctx.scans.start(ctx.principal, { url });
      return { scanId: scan.id, status: scan.status };
    }),
});

export const getScanTool = defineTool({
  name: 'get_scan',
  config: {
    title: 'Read a repository scan',
    description:
      "A scan started by scan_repository (yours or your team's): its status and progress, and once done " +
      'its findings, masked, failing ones in code first. summary.failing > 0 means secrets in real code: ' +
      'tell the user to rotate them (history keeps them) and, for false positives, add the fingerprint ' +
      'as a line of .svcignore on the default branch.',
    inputSchema: getInput,
    outputSchema: getOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  run: ({ scanId }, ctx) =>
    runTool('get_scan', ctx.logger, async () => presentScan(await ctx.scans.get(ctx.principal, scanId))),
});

export const listScansTool = defineTool({
  name: 'list_scans',
  config: {
    title: 'List repository scans',
    description:
      "Your and your team's recent repository scans, newest first, without their findings (get_scan has them).",
    inputSchema: listInput,
    outputSchema: listOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  run: ({ limit }, ctx) =>
    runTool('list_scans', ctx.logger, async () => ({
      scans: (await ctx.scans.list(ctx.principal)).slice(0, limit ?? 20).map(presentScanSummary),
    })),
});
