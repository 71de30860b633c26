import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureLogger } from '../../test/helpers/capture-logger.js';
import { processesIn, removeLeftovers } from './scan-leftovers.js';

const linux = existsSync('/proc/self/cmdline');

/** The id of a process that has exited: a directory named after it is a dead process's leftover. */
async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid as number;
}

function exited(child: ChildProcess): Promise<unknown> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.on('exit', resolve));
}

describe('the sweep of leftover scan directories', () => {
  let workDir: string;
  const children: ChildProcess[] = [];
  beforeEach(() => {
    workDir = mkdtempSync(join(tmpdir(), 'svc-leftovers-'));
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    rmSync(workDir, { recursive: true, force: true });
  });

  it('keeps the directories of living processes and anything not named like a scan', async () => {
    const mine = join(workDir, `scan-${process.ppid}-live`);
    const other = join(workDir, 'notes');
    mkdirSync(mine);
    mkdirSync(other);
    const { logger, logs } = captureLogger();
    await removeLeftovers(workDir, logger);
    expect(readdirSync(workDir).sort()).toEqual(['notes', `scan-${process.ppid}-live`]);
    expect(logs).toEqual([]);
  });

  it.skipIf(!linux)(
    'kills what still writes in a dead process’s directory before removing it, so nothing recreates it',
    async () => {
      const leftover = join(workDir, `scan-${await deadPid()}-abc`);
      mkdirSync(join(leftover, 'repo.git'), { recursive: true });
      // Like a clone outliving the service: it names the directory and recreates it as it writes,
      // in a process group of its own.
      const writer = spawn(
        'sh',
        [
          '-c',
          'while :; do mkdir -p "$0/repo.git/objects" && : > "$0/repo.git/objects/pack"; sleep 0.01; done',
          leftover,
        ],
        { detached: true, stdio: 'ignore' },
      );
      // And one working inside it, named only by its working directory.
      // And git's transfer helper: its command line names the URL, it works in the service's directory,
      // and only its $HOME (the scan's empty home, inherited from the clone) says it is the scan's.
      const helper = spawn('sleep', ['60'], {
        cwd: tmpdir(),
        env: { PATH: process.env.PATH, HOME: join(leftover, 'home') },
        detached: true,
        stdio: 'ignore',
      });
      const reader = spawn('sleep', ['60'], {
        cwd: join(leftover, 'repo.git'),
        detached: true,
        stdio: 'ignore',
      });
      children.push(writer, reader, helper);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The writer's shell may have a mkdir naming the directory in flight too.
      expect(processesIn(leftover)).toEqual(expect.arrayContaining([writer.pid, reader.pid, helper.pid]));

      const { logger, logs } = captureLogger();
      await removeLeftovers(workDir, logger);
      expect(processesIn(leftover)).toEqual([]);
      await Promise.all([exited(writer), exited(reader), exited(helper)]);
      expect(writer.signalCode).toBe('SIGKILL');
      expect(reader.signalCode).toBe('SIGKILL');
      expect(helper.signalCode).toBe('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(readdirSync(workDir)).toEqual([]);
      const entries = logs.map((line) => JSON.parse(line));
      expect(entries).toEqual([
        expect.objectContaining({
          msg: 'removed a leftover scan directory',
          dir: expect.stringMatching(/^scan-\d+-abc$/),
        }),
      ]);
      // The writer, the reader and the helper at least; a mkdir the writer's shell had forked at that
      // moment names the directory too, and is killed with them.
      expect(entries[0].killed).toBeGreaterThanOrEqual(3);
    },
  );
});
