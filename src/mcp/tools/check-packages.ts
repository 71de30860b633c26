import * as z from 'zod';
import { MAX_PACKAGES } from '../../hooks/types.js';
import { runTool } from '../results.js';
import { convertedOnce } from '../schema.js';
import { ecosystem, packageVerdict } from './package-verdict.js';
import { defineTool } from './tool.js';

const input = convertedOnce(
  z.object({
    packages: z
      .array(
        z.object({
          ecosystem: ecosystem.describe('npm, PyPI, crates.io, Go or NuGet.'),
          name: z.string().min(1).max(256).describe('The registry name, e.g. lodash, @types/node, requests.'),
          version: z
            .string()
            .max(256)
            .optional()
            .describe('The version you mean to install (exact or a range); the latest when omitted.'),
        }),
      )
      .min(1, { error: 'give at least one package' })
      .max(MAX_PACKAGES, { error: `at most ${MAX_PACKAGES} packages per call` }),
  }),
);

const output = convertedOnce(z.object({ packages: z.array(packageVerdict) }));

export const checkPackagesTool = defineTool({
  name: 'check_packages',
  config: {
    title: 'Check packages before adding them',
    description:
      `Check up to ${MAX_PACKAGES} packages before you add them to a project or install them: known ` +
      'malware (OSV), typosquats of popular names, names that do not exist on the registry (often a ' +
      'hallucinated name) and packages or versions published very recently. If risky is true, do not ' +
      'install it; tell the user the reasons and suggest the package they probably meant.',
    inputSchema: input,
    outputSchema: output,
    annotations: { readOnlyHint: true, openWorldHint: true },
  },
  run: ({ packages }, ctx) =>
    runTool('check_packages', ctx.logger, async () => ({
      packages: await ctx.hookChecks.checkPackages(packages),
    })),
});
