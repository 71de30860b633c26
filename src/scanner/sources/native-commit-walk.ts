import { CommitFacts, CommitFile } from './commit-list.js';
import { type GitRunner, runGit } from './git.js';
import { answered } from './native-module.js';
import { openObjectDatabase } from './object-database.js';

/** Lines of a walk's file read at a time (descendants' `<id> <parent>...` lines). */
const READ_BLOCK = 1 << 20;

/**
 * Every commit the refs reach, walked by the native object reader (commit_walk.rs) in the order
 * `git rev-list --all` lists them, written to a CommitFile as `<id>\n` lines (or, `withParents`,
 * `<id> <parent>...\n` as `rev-list --all --parents` writes them). Null where git is to walk
 * instead: no reader or a listing git must make (object-database.ts: shallow, grafts), linked
 * worktrees (whose HEADs `--all` adds too), or anything the walk could not read (a missing or
 * damaged commit: git's walk then says what). git maps each pack's whole index to walk (140 MB
 * resident of a million synthetic commits' 157 MB index) and keeps an object for each commit it
 * meets; this walk reads the index by positioned reads and keeps a bit for each object of a pack.
 * `withFacts`: the file's `facts` are each commit's tree and parents (CommitFacts), for the listing.
 */
export async function walkCommitsNatively(
  git: GitRunner,
  withParents = false,
  withFacts = false,
): Promise<CommitFile | null> {
  const opened = await openObjectDatabase(git, 'listing');
  if (opened === null) return null;
  try {
    const tips = await startingCommits(git);
    if (tips === null) return null;
    const file = new CommitFile();
    try {
      const facts = withFacts ? new CommitFacts() : null;
      file.facts = facts;
      await file.fill(async (fd) => {
        const out = Buffer.alloc(4);
        const bytes = await answered((done) =>
          opened.reader.walkCommits(opened.db, tips, withParents, fd, out, done, facts?.descriptor() ?? null),
        );
        facts?.written(out.readUInt32LE(0));
        return bytes;
      });
      return file;
    } catch {
      file.close();
      return null;
    }
  } finally {
    opened.reader.close(opened.db);
  }
}

/**
 * What `--all` starts from, in its order: every ref's object (by name, as `for-each-ref` lists
 * them), then HEAD's. Null when the repository has linked worktrees, or git could not say.
 */
async function startingCommits(git: GitRunner): Promise<Buffer | null> {
  // Three questions asked at once: each git's run overlaps the others' start.
  const [worktrees, refs, head] = await Promise.all([
    runGit(git, ['worktree', 'list', '--porcelain']),
    runGit(git, ['for-each-ref', '--format=%(objectname)']),
    runGit(git, ['rev-parse', '--verify', '--quiet', 'HEAD']),
  ]);
  const listed = worktrees.stdout.toString('latin1').match(/^worktree /gm)?.length ?? 0;
  if (worktrees.code !== 0 || listed > 1) return null;
  if (refs.code !== 0) return null;
  const ids = `${refs.stdout.toString('latin1')}${head.code === 0 ? head.stdout.toString('latin1') : ''}`
    .split('\n')
    .filter((id) => id !== '');
  if (!ids.every((id) => /^[0-9a-f]{40}$/.test(id))) return null;
  return Buffer.from(ids.join(''), 'hex');
}

/** Each line of a walk's file (walkCommitsNatively), in order, without its line feed. */
export function eachLine(file: CommitFile, onLine: (line: string) => void): void {
  let carry = '';
  for (let at = 0; at < file.size; at += READ_BLOCK) {
    const lines = (carry + file.bytes(at, Math.min(file.size, at + READ_BLOCK)).toString('latin1')).split(
      '\n',
    );
    carry = lines.pop()!;
    for (const line of lines) onLine(line);
  }
  if (carry !== '') onLine(carry);
}
