import { readdirSync, readFileSync } from 'node:fs';

/**
 * The names of this process's live child processes (Linux: from each thread's `children` file), so a
 * test can tell that a failed scan left no git behind. Empty where /proc has no such file.
 */
export function liveChildren(): string[] {
  const names: string[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return [];
  }
  for (const task of tasks) {
    let pids: string[];
    try {
      pids = readFileSync(`/proc/self/task/${task}/children`, 'latin1').trim().split(' ');
    } catch {
      continue;
    }
    for (const pid of pids.filter((p) => p !== '')) {
      try {
        names.push(readFileSync(`/proc/${pid}/comm`, 'latin1').trim());
      } catch {
        // it ended while we looked
      }
    }
  }
  return names;
}
