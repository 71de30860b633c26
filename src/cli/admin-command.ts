import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config.js';
import { createLogger } from '../server/logger.js';
import type { AccountService } from '../services/accounts.js';
import { PASSWORD_LINK_MS, passwordLinkUrl } from '../services/password-links.js';
import { type HookMode, isHookMode, isPlan, type Plan } from '../services/vocabulary.js';
import { createServices } from './create-services.js';
import { type CliIo, describeParseError, EXIT, UsageError } from './io.js';

export const ADMIN_HELP = `Usage: svc admin COMMAND [options]

Operator commands against the configured database (SVC_DATABASE_URL):
  create-user --email E [--plan free|paid]  prints a one-time link where the user sets a password
  reset-password --email E                 prints a new one-time link (the older one stops working)
  set-plan --email E --plan free|paid
  create-key --email E [--name N]        prints the new key alone on stdout (shown once)
  revoke-key --prefix P                   revokes every key starting with P (e.g. svc_AbC12345)
  create-team --name T [--plan free|paid] [--mode block|warn]
  add-member --team T --email E [--owner]  an owner switches the team's hook mode in the dashboard
  set-team-mode --team T --mode block|warn
  usage --email E                         CI runs used this month against the plan's limit
`;

const OPTIONS = {
  email: { type: 'string' },
  plan: { type: 'string' },
  name: { type: 'string' },
  prefix: { type: 'string' },
  team: { type: 'string' },
  mode: { type: 'string' },
  owner: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'string' ? string : boolean;
};

/** The commands' services: the operators' accounts, and the one-time link printer. */
interface Admin {
  accounts: AccountService;
  /** Prints a new one-time password link for the user alone on stdout (scriptable), and says on stderr what it is. */
  printLink(email: string, io: CliIo): Promise<void>;
}

const HOURS = PASSWORD_LINK_MS / 3_600_000;

const COMMANDS: Record<string, (admin: Admin, v: Values, io: CliIo) => Promise<void>> = {
  async 'create-user'({ accounts, printLink }, v, io) {
    const user = await accounts.createUser({ email: required(v, 'email'), plan: plan(v.plan ?? 'free') });
    io.stderr.write(
      `created user ${user.email} (${user.plan}); send them this link to set their password:\n`,
    );
    await printLink(user.email, io);
  },
  async 'reset-password'({ printLink }, v, io) {
    await printLink(required(v, 'email'), io);
  },
  async 'set-plan'({ accounts }, v, io) {
    const user = await accounts.setPlan(required(v, 'email'), plan(required(v, 'plan')));
    io.stdout.write(`${user.email} is now on the ${user.plan} plan\n`);
  },
  async 'create-key'({ accounts }, v, io) {
    io.stdout.write(`${await accounts.issueKey(required(v, 'email'), v.name ?? 'default')}\n`);
  },
  async 'revoke-key'({ accounts }, v, io) {
    const prefix = required(v, 'prefix');
    if (!prefix.startsWith('svc_') || prefix.length < 8) {
      throw new UsageError('--prefix must start with svc_ and name at least 4 more characters');
    }
    const revoked = await accounts.revokeKeys(prefix);
    io.stdout.write(`revoked ${revoked} key${revoked === 1 ? '' : 's'}\n`);
  },
  async 'create-team'({ accounts }, v, io) {
    const team = await accounts.createTeam({
      name: required(v, 'name'),
      plan: plan(v.plan ?? 'free'),
      hookMode: mode(v.mode ?? 'block'),
    });
    io.stdout.write(`created team ${team.name} (${team.plan}, hook mode ${team.hookMode})\n`);
  },
  async 'add-member'({ accounts }, v, io) {
    const team = required(v, 'team');
    const email = required(v, 'email');
    await accounts.addMember(team, email, v.owner === true ? 'owner' : 'member');
    io.stdout.write(`${email} is now ${v.owner === true ? 'an owner' : 'a member'} of ${team}\n`);
  },
  async 'set-team-mode'({ accounts }, v, io) {
    const team = await accounts.setTeamMode(required(v, 'team'), mode(required(v, 'mode')));
    io.stdout.write(`team ${team.name} hook mode: ${team.hookMode}\n`);
  },
  async usage({ accounts }, v, io) {
    const { user, team, plan, month, used, limit } = await accounts.usageOf(required(v, 'email'));
    const whose = team ? ` (team ${team.name})` : '';
    io.stdout.write(
      `${user.email}${whose}: ${used} of ${limit} CI runs used in ${month} on the ${plan} plan\n`,
    );
  },
};

export async function adminCommand(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.stdout.write(ADMIN_HELP);
    return EXIT.passed;
  }
  const run = COMMANDS[command];
  if (run === undefined) throw new UsageError(`unknown admin command "${command}"`);
  let values: Values;
  try {
    values = parseArgs({ args: rest, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new UsageError(describeParseError(e));
  }
  const config = loadConfig(io.env);
  // Nothing shared is needed (redis: null); warnings, such as a lost database connection, go to stderr.
  const services = await createServices(config, { logger: createLogger(io.stderr, 'warn'), redis: null });
  try {
    const printLink = async (email: string, out: CliIo) => {
      const { token, user } = await services.passwordLinks.issue(email);
      out.stdout.write(`${passwordLinkUrl(config.baseUrl, token)}\n`);
      out.stderr.write(
        `the link for ${user.email} is valid ${HOURS} h and works once; a newer link replaces it, and using it ends their sessions\n`,
      );
    };
    await run({ accounts: services.accounts, printLink }, values, io);
    return EXIT.passed;
  } finally {
    await services.close();
  }
}

function required(values: Values, name: 'email' | 'plan' | 'name' | 'prefix' | 'team' | 'mode'): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
}

function plan(value: string): Plan {
  if (!isPlan(value)) throw new UsageError(`--plan must be free or paid, not "${value}"`);
  return value;
}

function mode(value: string): HookMode {
  if (!isHookMode(value)) throw new UsageError(`--mode must be block or warn, not "${value}"`);
  return value;
}
