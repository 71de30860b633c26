import { readdirSync, readFileSync } from 'node:fs';

/**
 * The names of this process's live child processes (Linux: from each thread's `children` file), so a
 * test can tell that a failed scan left no git behind. Empty where /proc has no such file.
 */
export function liveChildren(): string[] {
  return liveChildProcesses().map((child) => child.name);
}

/** This process's live children, with their pids. */
export function liveChildProcesses(): { pid: number; name: string }[] {
  const found: { pid: number; name: string }[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return found;
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
        found.push({ pid: Number(pid), name: readFileSync(`/proc/${pid}/comm`, 'latin1').trim() });
      } catch {
        // it ended while we looked
      }
    }
  }
  return found;
}

/** Waits (up to `ms`) until no child named `name` is left: a killed one is reaped a moment later. */
export async function noChildLeft(name: string, ms = 2000): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    if (!liveChildren().includes(name)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return !liveChildren().includes(name);
}
