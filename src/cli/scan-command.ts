import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config.js';
import { REPORT_FORMATS, type ReportFormat, renderReport, scanRepository } from '../scanner/index.js';
import { createVerifier } from '../verify/index.js';
import { VERSION } from '../version.js';
import { type CliIo, EXIT, UsageError } from './io.js';
import { terminalProgress } from './progress.js';

export const SCAN_HELP = `Usage: svc scan [PATH] [options]

Scans every line added in every commit on every ref of the git repository at PATH (default: .)
for committed secrets. Fails only for secrets in code that .svcignore does not list.

Options:
  --format text|json|sarif|markdown   report format (default: text)
  --output FILE                       write the report to FILE instead of stdout
  --default-branch REF                read .svcignore from REF (default: origin/HEAD, else HEAD)
  --no-verify                         do not ask providers whether found credentials still work
  -h, --help                          show this help

Exit codes: 0 passed, 1 failing findings, 2 usage or fatal error, 3 scan incomplete.
`;

export async function scanCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseScanArgs(argv);
  if (values.help) {
    io.stdout.write(SCAN_HELP);
    return EXIT.passed;
  }
  const format = (values.format ?? 'text') as ReportFormat;
  if (!REPORT_FORMATS.includes(format)) {
    throw new UsageError(`unknown format "${values.format}" (expected ${REPORT_FORMATS.join(', ')})`);
  }
  if (positionals.length > 1) throw new UsageError(`expected one PATH, got ${positionals.length}`);
  const path = positionals[0] ?? '.';
  const config = loadConfig(io.env);

  const progress = terminalProgress(io.stderr);
  const result = await scanRepository({
    path,
    defaultBranch: values['default-branch'],
    // Spec 3: the command line checks credentials unless told not to.
    verify: values['no-verify'] ? undefined : createVerifier({ urls: config.providers }),
    onProgress: progress.update,
    onWarning: (message) => {
      progress.done();
      io.stderr.write(`svc: warning: ${message}\n`);
    },
  });
  progress.done();

  const color =
    format === 'text' && values.output === undefined && io.stdout.isTTY === true && !io.env.NO_COLOR;
  const report = renderReport(result, format, { toolVersion: VERSION, color });
  if (values.output !== undefined) {
    await writeFile(values.output, report).catch((e: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot write ${values.output}: ${e.code ?? e.message}`);
    });
  } else {
    io.stdout.write(report);
  }
  if (!result.passed) return EXIT.failed;
  return result.incomplete ? EXIT.incomplete : EXIT.passed;
}

function parseScanArgs(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        format: { type: 'string' },
        output: { type: 'string', short: 'o' },
        'default-branch': { type: 'string' },
        'no-verify': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError(describeParseError(e));
  }
}

/** node:util's messages are long and suggest `--`; keep the first sentence. */
export function describeParseError(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return message.split(/\.\s/)[0]!.replace(/'/g, '');
}
