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
  /**
   * Peak of the summed proportional set size of the tree: resident memory with each shared page
   * (a pack file mapped by two gits, shared libraries) divided among the processes sharing it, so
   * the sum is the physical memory the tree holds, counted once.
   */
  peakTreePssMiB: number;
  /**
   * Peak of the summed anonymous resident memory of the tree (heaps, stacks, caches: what only the
   * processes hold), without the file pages they map (git's pack and its index, read-only and
   * clean: page cache the kernel takes back when it needs the room, and shared with every reader).
   */
  peakTreeAnonMiB: number;
  code: number | null;
}

const PAGE_KIB = 4;

/**
 * A `Name:   123 kB` field of one of a process's /proc files, in KiB (0 once it has ended): its
 * anonymous resident memory (`status`, RssAnon) or its proportional set size (`smaps_rollup`, Pss).
 */
function procKiB(pid: number, file: 'status' | 'smaps_rollup', field: 'RssAnon' | 'Pss'): number {
  try {
    const text = readFileSync(`/proc/${pid}/${file}`, 'latin1');
    return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

export function treeMemory(root: number): {
  total: number;
  largest: number;
  own: number;
  pss: number;
  anon: number;
} {
  let total = 0;
  let largest = 0;
  let pss = 0;
  let anon = 0;
  let own = 0;
  const stack = [root];
  const rootCommand = commandLine(root);
  while (stack.length > 0) {
    const pid = stack.pop()!;
    // A child caught between fork and exec (Node starting a git) is still a copy of the scan's
    // process: its resident pages are the scan's own, shared copy-on-write, and would count twice.
    if (pid !== root && commandLine(pid) === rootCommand) continue;
    const rss = rssKiB(pid);
    if (pid === root) own = rss;
    total += rss;
    largest = Math.max(largest, rss);
    pss += procKiB(pid, 'smaps_rollup', 'Pss');
    anon += procKiB(pid, 'status', 'RssAnon');
    stack.push(...childrenOf(pid));
  }
  return { total, largest, own, pss, anon };
}

/** A process's command line ('' once it has ended). */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1');
  } catch {
    return '';
  }
}

/** A process's resident memory in KiB (0 once it has ended). */
function rssKiB(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Fields after the command name, which is in parentheses and may hold spaces.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[21]) * PAGE_KIB;
  } catch {
    return 0;
  }
}

/**
 * A process's children, from each of its threads' `children` file: reading only the tree keeps the
 * sampler light (reading every process's stat 50 times a second slowed a 2-core scan by a quarter).
 */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const task of tasks) {
    try {
      const list = readFileSync(`/proc/${pid}/task/${task}/children`, 'latin1').trim();
      if (list !== '') children.push(...list.split(' ').map(Number));
    } catch {
      // the thread ended while we looked
    }
  }
  return children;
}

/**
 * Runs a command, sampling its process tree's memory every 50 ms (unless `sampleMemory` is false:
 * the memory figures are then 0); stdout goes to /dev/null.
 */
export function measure(
  command: string,
  args: string[],
  cwd?: string,
  { sampleMemory = true }: { sampleMemory?: boolean } = {},
): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
    let peakTree = 0;
    let peakLargest = 0;
    let peakRoot = 0;
    let peakPss = 0;
    let peakAnon = 0;
    const timer = setInterval(() => {
      if (child.pid === undefined || !sampleMemory) return;
      const { total, largest, own, pss, anon } = treeMemory(child.pid);
      peakPss = Math.max(peakPss, pss);
      peakAnon = Math.max(peakAnon, anon);
      peakRoot = Math.max(peakRoot, own);
      peakTree = Math.max(peakTree, total);
      peakLargest = Math.max(peakLargest, largest);
    }, 50);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      resolve({
        wallSeconds: Number(process.hrtime.bigint() - started) / 1e9,
        peakTreeMiB: peakTree / 1024,
        peakLargestMiB: peakLargest / 1024,
        peakRootMiB: peakRoot / 1024,
        peakTreePssMiB: peakPss / 1024,
        peakTreeAnonMiB: peakAnon / 1024,
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

/**
 * One run for the time, without the memory sampler, and one sampled run for the memory: reading
 * /proc (PSS above all) every 50 ms cost a two-core scan 5-12% of its time, and git log, one
 * process with a core to spare, nothing.
 */
export async function measureAll(
  name: string,
  command: string,
  args: string[],
  before?: () => void,
): Promise<Measurement> {
  before?.();
  const timed = await measure(command, args, undefined, { sampleMemory: false });
  before?.();
  const sampled = await measure(command, args);
  for (const m of [timed, sampled])
    if (m.code !== 0 && m.code !== 1 && m.code !== 3) throw new Error(`${name} exited with ${m.code}`);
  return { ...sampled, wallSeconds: timed.wallSeconds };
}
