import { ScanError } from '../errors.js';
import { type AddedLineSink, DiffStreamParser, PATCH_OPTIONS } from './diff-parser.js';
import { firstLine, type GitRunner, runGit, spawnFailure, spawnGit } from './git.js';

/**
 * `git diff --cached` with every option that shapes its output pinned, as the history's `git log`
 * has them (history.ts): the lines the index adds relative to HEAD (the whole index before the first
 * commit), renames detected, no color, prefixes or external drivers from the user's configuration.
 */
const STAGED_DIFF_ARGS = ['-c', 'diff.renames=true', 'diff', '--cached', ...PATCH_OPTIONS];

/**
 * Hands the staged changes' added lines to `sink`, as one commit whose id is empty: the author is
 * who would commit them (`git var GIT_AUTHOR_IDENT`), the date now.
 */
export async function readStagedChanges(
  git: GitRunner,
  sink: AddedLineSink,
  prefilter: RegExp,
): Promise<void> {
  const author = await whoCommits(git);
  const parser = new DiffStreamParser(sink, new RegExp(prefilter.source, prefilter.flags));
  parser.push(Buffer.from(`\x01\x1f${author}\x1f${new Date().toISOString()}\n`));
  await new Promise<void>((resolve, reject) => {
    const child = spawnGit(git, STAGED_DIFF_ARGS);
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => parser.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    child.on('error', (e) => reject(spawnFailure(git, e)));
    child.on('close', (code) => {
      parser.end();
      if (code === 0) resolve();
      else reject(new ScanError('fatal', `cannot read the staged changes: ${firstLine(stderr)}`));
    });
    child.stdin.end();
  });
}

/** The name of who would commit now; empty when git knows none (no user.name configured). */
async function whoCommits(git: GitRunner): Promise<string> {
  const ident = await runGit(git, ['var', 'GIT_AUTHOR_IDENT']);
  if (ident.code !== 0) return '';
  return ident.stdout
    .toString('utf8')
    .replace(/\s*<[^>]*>.*$/s, '')
    .trim();
}
