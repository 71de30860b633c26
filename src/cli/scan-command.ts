import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import {
  keepAllocatorCompact,
  REPORT_FORMATS,
  type ReportFormat,
  renderReport,
  type ScanResult,
  scanRepository,
  scanStaged,
} from '../scanner/index.js';
import { createVerifier } from '../verify/index.js';
import { VERSION } from '../version.js';
import { type CliIo, describeParseError, EXIT, UsageError } from './io.js';
import { preReceive } from './pre-receive-command.js';
import { terminalProgress } from './progress.js';

export const SCAN_HELP = `Usage: svc scan [PATH] [options]

Scans every line added in every commit on every ref of the git repository at PATH (default: .)
for committed secrets. Fails only for secrets in code that .svcignore does not list.

Options:
  --format text|json|sarif|markdown|gitlab
                                      report format (default: text); repeat --format with
                                      --output to write several reports from one scan
  --output FILE                       write the report to FILE instead of stdout
  --default-branch REF                read .svcignore from REF (default: origin/HEAD, else HEAD)
  --no-verify                         do not ask providers whether found credentials still work
  --staged                            scan only the lines the index adds (a pre-commit hook): no
                                      commit, fingerprints <rule>:staged:<path>:<line>; offline
                                      unless --verify
  --pre-receive                       for a git server's pre-receive hook: read "<old> <new> <ref>"
                                      lines on stdin, scan only the commits the push adds, and exit 1
                                      to refuse it when they hold a secret in code; offline unless
                                      --verify
  --verify                            check credentials in a --staged or --pre-receive scan
  --cache FILE                        incremental scans: FILE records the commits found clean, and
                                      the next scan reads only the others (same report as a full
                                      scan); FILE holds commit ids only, never a secret
  -h, --help                          show this help

Exit codes: 0 passed, 1 failing findings, 2 usage or fatal error, 3 scan incomplete.
`;

/**
 * A scan allocates fast and keeps little (blob contents go through one reused buffer), yet V8 grows
 * its young generation to its largest under that rate: 16 MB a half-space on Node 20, more on Node
 * 24. Left at its first size, the scan's process peaked at 177 MB instead of 215 MB on a
 * 39,000-commit history, no slower (npm run bench). Growth is read when V8 grows the space, so this
 * takes effect although V8 has started; the service's processes keep V8's defaults. glibc's
 * allocator likewise (keepAllocatorCompact).
 */
function keepMemorySmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  keepAllocatorCompact();
}

export async function scanCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseScanArgs(argv);
  if (values.help) {
    io.stdout.write(SCAN_HELP);
    return EXIT.passed;
  }
  const reports = pairReports(values.format ?? [], values.output ?? []);
  if (positionals.length > 1) throw new UsageError(`expected one PATH, got ${positionals.length}`);
  const path = positionals[0] ?? '.';
  keepMemorySmall();

  const mode = scanMode(values);
  // The command line checks credentials unless told not to (--no-verify) in a history scan, and only
  // when told to (--verify) otherwise. The configuration (the providers' addresses) is read only
  // then, and before the scan: a bad setting is said at once. Its validation library is loaded only
  // then too: 0.1 s of a scan's start otherwise.
  const checks = mode === 'history' ? values['no-verify'] !== true : values.verify === true;
  const verify = checks ? await verifier(io) : undefined;
  if (mode === 'pre-receive') {
    return preReceive(path, await readAll(io.stdin), io, verify);
  }
  let result: ScanResult;
  if (mode === 'staged') {
    result = await scanStaged({
      path,
      defaultBranch: values['default-branch'],
      verify,
    });
  } else {
    const progress = terminalProgress(io.stderr);
    result = await scanRepository({
      path,
      defaultBranch: values['default-branch'],
      cache: values.cache,
      scannerVersion: VERSION,
      verify,
      onProgress: progress.update,
      onWarning: (message) => {
        progress.done();
        io.stderr.write(`svc: warning: ${message}\n`);
      },
    });
    progress.done();
  }

  for (const { format, output } of reports) {
    const color = format === 'text' && output === undefined && io.stdout.isTTY === true && !io.env.NO_COLOR;
    const report = renderReport(result, format, { toolVersion: VERSION, color });
    if (output === undefined) {
      io.stdout.write(report);
      continue;
    }
    await writeFile(output, report).catch((e: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot write ${output}: ${e.code ?? e.message}`);
    });
  }
  if (!result.passed) return EXIT.failed;
  return result.incomplete ? EXIT.incomplete : EXIT.passed;
}

type ScanValues = ReturnType<typeof parseScanArgs>['values'];

async function verifier(io: CliIo) {
  const { loadConfig } = await import('../config/config.js');
  return createVerifier({ urls: loadConfig(io.env).providers });
}

/** Which scan the flags ask for; flags that cannot go together are a usage error. */
function scanMode(values: ScanValues): 'history' | 'staged' | 'pre-receive' {
  if (values.staged && values['pre-receive'])
    throw new UsageError('--staged and --pre-receive exclude each other');
  if (values.verify && values['no-verify'])
    throw new UsageError('--verify and --no-verify exclude each other');
  const mode = values.staged ? 'staged' : values['pre-receive'] ? 'pre-receive' : 'history';
  if (mode === 'history' && values.verify) {
    throw new UsageError('--verify is for --staged and --pre-receive (a history scan checks by default)');
  }
  if (mode !== 'history' && values.cache !== undefined)
    throw new UsageError(`--cache does not apply to --${mode}`);
  if (mode === 'pre-receive' && (values.format !== undefined || values.output !== undefined)) {
    throw new UsageError('--pre-receive prints its own message for the pusher: no --format or --output');
  }
  return mode;
}

/** All of a stream as text (the hook's input is a few lines a ref). */
async function readAll(stream: NodeJS.ReadableStream | undefined): Promise<string> {
  if (stream === undefined) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

function parseScanArgs(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        format: { type: 'string', multiple: true },
        output: { type: 'string', short: 'o', multiple: true },
        'default-branch': { type: 'string' },
        cache: { type: 'string' },
        'no-verify': { type: 'boolean' },
        verify: { type: 'boolean' },
        staged: { type: 'boolean' },
        'pre-receive': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError(describeParseError(e));
  }
}

/**
 * Each --format goes to the --output in the same position; one format more than outputs sends the
 * last to stdout. No --format means text.
 */
function pairReports(formats: string[], outputs: string[]): { format: ReportFormat; output?: string }[] {
  const wanted = formats.length === 0 ? ['text'] : formats;
  for (const f of wanted) {
    if (!REPORT_FORMATS.includes(f as ReportFormat)) {
      throw new UsageError(`unknown format "${f}" (expected ${REPORT_FORMATS.join(', ')})`);
    }
  }
  if (outputs.length > wanted.length) throw new UsageError('each --output needs its own --format');
  if (outputs.length < wanted.length - 1) {
    throw new UsageError('only one report can go to stdout: give each other --format its --output');
  }
  return wanted.map((format, i) => ({ format: format as ReportFormat, output: outputs[i] }));
}
