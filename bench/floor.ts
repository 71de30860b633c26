import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * git's floor for a scan that reads every version of every file (issue 31): `git cat-file --batch`
 * of every blob of the repository, in the pack's order (the fastest order to inflate them), one
 * core. Writes the ids to a file in `workDir` for its standard input (listing them is not timed)
 * and returns the command that reads them, their count and their total size.
 */
export function floorCommand(
  repo: string,
  workDir: string,
  name: string,
): { command: string; args: string[]; count: number; bytes: number } {
  const listing = execFileSync(
    'git',
    [
      '-C',
      repo,
      'cat-file',
      '--batch-all-objects',
      '--unordered',
      '--batch-check=%(objecttype) %(objectname) %(objectsize)',
    ],
    { encoding: 'latin1', maxBuffer: 1 << 30 },
  );
  let bytes = 0;
  const ids: string[] = [];
  for (const line of listing.split('\n')) {
    const [type, id, size] = line.split(' ');
    if (type !== 'blob') continue;
    ids.push(id!);
    bytes += Number(size);
  }
  const file = join(workDir, `blobs-${name.replace(/[^\w.-]+/g, '_')}.txt`);
  writeFileSync(file, `${ids.join('\n')}\n`);
  return {
    command: 'sh',
    args: ['-c', 'exec git -C "$1" cat-file --batch < "$2"', 'sh', repo, file],
    count: ids.length,
    bytes,
  };
}
