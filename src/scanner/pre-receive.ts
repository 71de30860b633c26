import { ScanError } from './errors.js';
import { type ScanOptions, scanRepository } from './scan.js';
import { runGit } from './sources/git.js';
import { openRepository } from './sources/repository.js';
import type { Finding, ScanResult } from './types.js';

/** One line of a pre-receive hook's input: `<old> <new> <ref>`. */
export interface RefUpdate {
  old: string;
  new: string;
  ref: string;
}

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const ZERO = /^0+$/;

/** git's input to a pre-receive hook, one update a line; a line of another shape is an error. */
export function parseRefUpdates(text: string): RefUpdate[] {
  const updates: RefUpdate[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const [old = '', now = '', ...rest] = line.trim().split(' ');
    const ref = rest.join(' ');
    if (!OBJECT_ID.test(old) || !OBJECT_ID.test(now) || ref === '') {
      throw new ScanError(
        'usage',
        `not a pre-receive input line ("<old> <new> <ref>"): ${line.slice(0, 100)}`,
      );
    }
    updates.push({ old, new: now, ref });
  }
  return updates;
}

export interface PushScan {
  result: ScanResult;
  /** For each finding, the pushed refs whose new tip contains its commit. */
  refsOf: Map<Finding, string[]>;
}

/**
 * The commits a push adds (reachable from its new tips and from no ref the repository has now, as
 * a pre-receive hook sees it: the refs have not moved yet), scanned; null when it adds nothing to
 * scan (only deletions). `.svcignore` is read from the default branch as it is before the push, so
 * a push cannot silence its own findings.
 */
export async function scanPush(
  updates: readonly RefUpdate[],
  options: Omit<ScanOptions, 'commits' | 'cache'>,
): Promise<PushScan | null> {
  const pushed = updates.filter((u) => !ZERO.test(u.new));
  const tips = [...new Set(pushed.map((u) => u.new))];
  if (tips.length === 0) return null;
  const result = await scanRepository({ ...options, commits: { tips, exclude: [], excludeEveryRef: true } });
  const refsOf = new Map<Finding, string[]>();
  if (result.findings.length > 0) {
    const git = await openRepository(options.path, options.gitBinary ?? 'git');
    for (const finding of result.findings) {
      const refs: string[] = [];
      for (const u of pushed) {
        if (finding.commit === null) continue;
        const within = await runGit(git, ['merge-base', '--is-ancestor', finding.commit, u.new]);
        if (within.code === 0) refs.push(u.ref);
      }
      refsOf.set(finding, refs);
    }
  }
  return { result, refsOf };
}
