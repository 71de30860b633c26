import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ignoreLineOf, isFailing, parseIgnoreFile, scanRepository } from '../scanner/index.js';
import { type CliIo, describeParseError, EXIT, UsageError } from './io.js';
import { terminalProgress } from './progress.js';

export const BASELINE_HELP = `Usage: svc baseline [PATH] [--default-branch REF]

Accepts every finding the history holds today: scans PATH (default .) and appends the ignore line of
each failing finding that .svcignore does not list yet to .svcignore in the work tree (made when
absent), under a dated comment. Commit that file on the default branch: the next svc scan passes,
and only new secrets fail it. Nothing else is written; no credential is checked. The findings stay
in the history: rotate any that are real.
`;

export async function baselineCommand(argv: string[], io: CliIo): Promise<number> {
  let parsed: { values: { 'default-branch'?: string; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { 'default-branch': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (e) {
    throw new UsageError(describeParseError(e));
  }
  if (parsed.values.help) {
    io.stdout.write(BASELINE_HELP);
    return EXIT.passed;
  }
  if (parsed.positionals.length > 1)
    throw new UsageError(`expected one PATH, got ${parsed.positionals.length}`);
  const path = parsed.positionals[0] ?? '.';
  const progress = terminalProgress(io.stderr);
  const result = await scanRepository({
    path,
    defaultBranch: parsed.values['default-branch'],
    onProgress: progress.update,
    onWarning: (message) => {
      progress.done();
      io.stderr.write(`svc: warning: ${message}\n`);
    },
  });
  progress.done();
  const workTree = await workTreeOf(path);
  const file = join(workTree, '.svcignore');
  const existing = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw new UsageError(`cannot read ${file}: ${e.code ?? e.message}`);
  });
  // Listed in the work tree's file already (not yet committed, say): not added twice.
  const listed = parseIgnoreFile(existing ?? '');
  const lines = result.findings
    .filter((f) => isFailing(f) && !listed.has(f.fingerprint))
    .map((f) => ignoreLineOf(f.fingerprint));
  const where = result.defaultBranch === null ? 'the default branch' : result.defaultBranch;
  if (lines.length === 0) {
    io.stdout.write(`svc: nothing to accept: no failing finding that .svcignore does not list\n`);
    return EXIT.passed;
  }
  const day = new Date().toISOString().slice(0, 10);
  // A blank line between what the file held and this block (and the newline its last line lacked).
  const before = existing === null || existing === '' ? '' : existing.endsWith('\n') ? '\n' : '\n\n';
  const block = `${before}# svc baseline ${day}: ${lines.length} finding(s) in history accepted\n${lines.join('\n')}\n`;
  await appendFile(file, block).catch((e: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot write ${file}: ${e.code ?? e.message}`);
  });
  io.stdout.write(
    `svc: ${lines.length} finding(s) accepted: their ignore lines were added to ${file}.\n` +
      `Commit it on ${where}: the next svc scan passes and only new secrets fail. ` +
      'Rotate any credential among them that is real: it stays in the history.\n',
  );
  return EXIT.passed;
}

/** The work tree's top folder; a bare repository has none to write .svcignore in. */
async function workTreeOf(path: string): Promise<string> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    execFile('git', ['-C', path, 'rev-parse', '--show-toplevel'], { encoding: 'utf8' }, (error, stdout) => {
      if (error)
        reject(new UsageError(`${path} has no work tree to write .svcignore in (a bare repository?)`));
      else resolve(stdout.trim());
    });
  });
}
