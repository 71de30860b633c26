import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface Measurement {
  wallSeconds: number;
  /** Peak of the summed resident memory of the process and all its descendants (git children too). */
  peakTreeMiB: number;
  /** Peak resident memory of the single largest process in the tree. */
  peakLargestMiB: number;
  /** Peak resident memory of the command's own process (node for svc, git for the baseline). */
  peakRootMiB: number;
  code: number | null;
}

const PAGE_KIB = 4;

/** Parent pid and resident pages of every process, from /proc. */
function processTable(): Map<number, { ppid: number; rssKiB: number }> {
  const table = new Map<number, { ppid: number; rssKiB: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      // Fields after the command name, which is in parentheses and may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(entry), { ppid: Number(fields[1]), rssKiB: Number(fields[21]) * PAGE_KIB });
    } catch {
      // the process ended while we looked
    }
  }
  return table;
}

export function treeMemory(root: number): { total: number; largest: number; own: number } {
  const table = processTable();
  const children = new Map<number, number[]>();
  for (const [pid, { ppid }] of table) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  let total = 0;
  let largest = 0;
  const own = table.get(root)?.rssKiB ?? 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    const rss = table.get(pid)?.rssKiB ?? 0;
    total += rss;
    largest = Math.max(largest, rss);
    stack.push(...(children.get(pid) ?? []));
  }
  return { total, largest, own };
}

/** Runs a command, sampling its process tree's memory every 20 ms; stdout goes to /dev/null. */
export function measure(command: string, args: string[], cwd?: string): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
    let peakTree = 0;
    let peakLargest = 0;
    let peakRoot = 0;
    const timer = setInterval(() => {
      if (child.pid === undefined) return;
      const { total, largest, own } = treeMemory(child.pid);
      peakRoot = Math.max(peakRoot, own);
      peakTree = Math.max(peakTree, total);
      peakLargest = Math.max(peakLargest, largest);
    }, 20);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      resolve({
        wallSeconds: Number(process.hrtime.bigint() - started) / 1e9,
        peakTreeMiB: peakTree / 1024,
        peakLargestMiB: peakLargest / 1024,
        peakRootMiB: peakRoot / 1024,
        code,
      });
    });
  });
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
