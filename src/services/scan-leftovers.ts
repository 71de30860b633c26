import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';

/** How long the processes still working in a leftover directory get to die once killed. */
const KILL_WAIT_MS = 5000;

/**
 * Clone directories left by a process that died (SIGKILL, a crash, a power cut): those of processes
 * no longer running, and of this process id (it owns none yet; a restarted container reuses ids).
 *
 * A clone's git runs in a process group of its own, so it outlives a SIGKILL of the service until
 * its next write to the closed pipe, and at low priority on a busy machine that can be seconds.
 * Removing the directory under it is not enough: git recreates the leading directories of the next
 * file it writes. So whatever still works in the directory is killed first, and waited for.
 */
export async function removeLeftovers(workDir: string, logger: Logger): Promise<void> {
  for (const name of await readdir(workDir)) {
    const pid = /^scan-(\d+)-/.exec(name)?.[1];
    if (pid === undefined || (Number(pid) !== process.pid && alive(Number(pid)))) continue;
    const dir = join(workDir, name);
    const killed = await killProcessesIn(dir);
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    logger.info({ dir: name, killed }, 'removed a leftover scan directory');
  }
}

/** Kills the processes working in `dir` and waits until none is left; answers how many there were. */
async function killProcessesIn(dir: string): Promise<number> {
  const killed = new Set<number>();
  const deadline = Date.now() + KILL_WAIT_MS;
  for (;;) {
    const working = processesIn(dir);
    if (working.length === 0 || Date.now() > deadline) return killed.size;
    for (const pid of working) {
      try {
        process.kill(pid, 'SIGKILL');
        killed.add(pid);
      } catch {
        // gone already
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The processes whose command line names `dir` (git clone's target), whose working directory is in
 * it (the index-pack git clone starts there) or whose $HOME is in it, found in /proc. The last is
 * git's transfer helper (`git remote-http origin URL`): it names neither the directory nor works in
 * it, and when the server stalls mid-transfer it waits on the socket for good, never writing, so it
 * outlived both the service and the sweep (issue 29). Every git of a scan has the scan's own empty
 * home (scan-clone.ts's pinned environment) as $HOME, inherited by whatever git starts; nothing
 * else has it. Where there is no /proc (not Linux), none are known, and removing the directory is
 * all that is done.
 */
export function processesIn(dir: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      if (cmdline.some((arg) => inside(arg, dir)) || inside(cwd, dir) || homeInside(entry, dir)) {
        found.push(Number(entry));
      }
    } catch {
      // exited meanwhile, or another user's
    }
  }
  return found;
}

function homeInside(pid: string, dir: string): boolean {
  const home = readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .find((entry) => entry.startsWith('HOME='));
  return home !== undefined && inside(home.slice('HOME='.length), dir);
}

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but is another user's.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
