import { ALL_COMMANDS } from '../../src/cli/commands.js';
import { run } from '../../src/cli/run.js';
import { sink } from './text-sink.js';

/**
 * `svc admin ARGS` run in this process as the CLI runs it (run.ts: its error lines and exit codes),
 * against the database at `databaseUrl` (a TestDatabase's processUrl) with SVC_BASE_URL `baseUrl`.
 */
export async function runAdmin(
  args: string[],
  settings: { databaseUrl: string; baseUrl: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const [stdout, stderr] = [sink(), sink()];
  const code = await run(
    ['admin', ...args],
    {
      stdout: stdout.stream,
      stderr: stderr.stream,
      env: { SVC_DATABASE_URL: settings.databaseUrl, SVC_BASE_URL: settings.baseUrl },
    },
    ALL_COMMANDS,
  );
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
