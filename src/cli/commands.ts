import type { CommandSet } from './run.js';

/**
 * Every command of the npm package's `svc`, each loaded on demand: `svc scan` never pays for the
 * service's HTTP, database and Redis modules. A module of its own so that the single executable
 * (binary-main.ts, the scanner alone) does not bundle them: a 3.3 MB bundle with the service in it
 * took 35 MB more at start-up than the scanner's own modules.
 */
export const ALL_COMMANDS: CommandSet = {
  scan: async () => {
    const m = await import('./scan-command.js');
    return { run: m.scanCommand, help: m.SCAN_HELP };
  },
  baseline: async () => {
    const m = await import('./baseline-command.js');
    return { run: m.baselineCommand, help: m.BASELINE_HELP };
  },
  serve: async () => {
    const m = await import('./serve-command.js');
    return { run: m.serveCommand, help: m.SERVE_HELP };
  },
  worker: async () => {
    const m = await import('./worker-command.js');
    return { run: m.workerCommand, help: m.WORKER_HELP };
  },
  'check-command': async () => {
    const m = await import('./check-command.js');
    return { run: m.checkCommand, help: m.CHECK_HELP };
  },
  hooks: async () => {
    const m = await import('./hooks-command.js');
    return { run: m.hooksCommand, help: m.HOOKS_HELP };
  },
  admin: async () => {
    const m = await import('./admin-command.js');
    return { run: m.adminCommand, help: m.ADMIN_HELP };
  },
};
