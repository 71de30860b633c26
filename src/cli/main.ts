#!/usr/bin/env node
import { ALL_COMMANDS } from './commands.js';
import { run } from './run.js';

// The only place that touches process.exit state: everything else returns an exit code.
process.exitCode = await run(
  process.argv.slice(2),
  {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
  },
  ALL_COMMANDS,
);
