import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config.js';
import { memoryCache } from '../hooks/cache.js';
import { decideCommand } from '../hooks/decide.js';
import { createRegistries } from '../hooks/ecosystems/index.js';
import { createOsvLookup } from '../hooks/risk/osv.js';
import type { HookMode } from '../storage/index.js';
import { type CliIo, EXIT, UsageError } from './io.js';
import { describeParseError } from './scan-command.js';

export const CHECK_HELP = `Usage: svc check-command "<shell line>" [--json] [--mode block|warn]

What the agent hook endpoints would decide for this line, without a server: installs are judged
against the configured registries and OSV (SVC_NPM_REGISTRY_URL, ..., SVC_OSV_URL).
Exit 0 whatever the decision (the decision is the output).
`;

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
  const mode = (values.mode ?? 'block') as HookMode;
  if (mode !== 'block' && mode !== 'warn')
    throw new UsageError(`--mode must be block or warn, not "${mode}"`);
  const config = loadConfig(io.env);
  const decision = await decideCommand(positionals[0]!, mode, {
    registries: createRegistries(config.registries),
    osv: createOsvLookup({ baseUrl: config.registries.osv }),
    cache: memoryCache(),
    now: () => new Date(),
  });
  if (values.json) {
    const out = {
      decision: decision.decision,
      installs: decision.installs.map(({ ecosystem, name, version, risky, reasons }) => ({
        ecosystem,
        name,
        version,
        risky,
        reasons,
      })),
      skipped: decision.skipped,
      message: decision.message,
    };
    io.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    io.stdout.write(`${decision.decision.toUpperCase()}\n${decision.message}\n`);
  }
  return EXIT.passed;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: { json: { type: 'boolean' }, mode: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
}
