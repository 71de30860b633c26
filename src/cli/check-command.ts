import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config.js';
import { commandReport, createHookCheckService } from '../services/hook-checks.js';
import { isHookMode } from '../services/vocabulary.js';
import { createRiskServices } from './create-services.js';
import { type CliIo, describeParseError, EXIT, UsageError } from './io.js';

export const CHECK_HELP = `Usage: svc check-command "<shell line>" [--json] [--mode block|warn]

What the agent hook endpoints would decide for this line, without a server: installs are judged
against the configured registries and OSV (SVC_NPM_REGISTRY_URL, ..., SVC_OSV_URL).
Exit codes, so that a script can act on the decision: 0 allow, 1 deny, 3 ask, 2 usage error.
`;

/** The exit code of each decision (contract 2.3); 2 stays the usage error of every command. */
const DECISION_EXIT = { allow: 0, deny: 1, ask: 3 } as const;

export async function checkCommand(argv: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    throw new UsageError(describeParseError(e));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(CHECK_HELP);
    return EXIT.passed;
  }
  if (positionals.length !== 1) throw new UsageError('expected one shell line, quoted');
  const mode = values.mode ?? 'block';
  if (!isHookMode(mode)) throw new UsageError(`--mode must be block or warn, not "${mode}"`);
  const config = loadConfig(io.env);
  // No principal: nobody's team mode applies and nothing is recorded.
  const hookChecks = createHookCheckService({ risk: createRiskServices(config), now: () => new Date() });
  const decision = await hookChecks.check(null, {
    command: positionals[0]!,
    requestedMode: mode,
    agent: 'a',
  });
  if (values.json) {
    io.stdout.write(`${JSON.stringify(commandReport(decision), null, 2)}\n`);
  } else {
    io.stdout.write(`${decision.decision.toUpperCase()}\n${decision.message}\n`);
  }
  return DECISION_EXIT[decision.decision];
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: { json: { type: 'boolean' }, mode: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
}
