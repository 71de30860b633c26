import { run } from './run.js';
import { SCAN_HELP, scanCommand } from './scan-command.js';

/**
 * The single executable's entry (what CI downloads): the scanner CLI only. The service's commands need a
 * native SQLite module and have no place in a CI runner's download; `svc serve` stays `npm start`.
 * CommonJS once bundled (Node's single executables run CommonJS), hence no top-level await here.
 */
run(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env },
  { scan: async () => ({ run: scanCommand, help: SCAN_HELP }) },
).then((code) => {
  process.exitCode = code;
});
