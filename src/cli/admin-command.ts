import { parseArgs } from 'node:util';
import { issueApiKey } from '../auth/api-keys.js';
import { loadConfig } from '../config/config.js';
import { usageMonth } from '../server/usage-month.js';
import {
  type HookMode,
  openStore,
  type Plan,
  type Store,
  StoreError,
  usageAccountOf,
} from '../storage/index.js';
import { type CliIo, EXIT, UsageError } from './io.js';
import { describeParseError } from './scan-command.js';

export const ADMIN_HELP = `Usage: svc admin COMMAND [options]

Operator commands against the configured database (SVC_DATABASE_URL):
  create-user --email E [--plan free|paid]
  set-plan --email E --plan free|paid
  create-key --email E [--name N]        prints the new key alone on stdout (shown once)
  revoke-key --prefix P                   revokes every key starting with P (e.g. svc_AbC12345)
  create-team --name T [--plan free|paid] [--mode block|warn]
  add-member --team T --email E
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
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'string' ? string : boolean;
};

const COMMANDS: Record<
  string,
  (store: Store, v: Values, io: CliIo, env: NodeJS.ProcessEnv) => Promise<void>
> = {
  async 'create-user'(store, v, io) {
    const user = await store.createUser({ email: required(v, 'email'), plan: plan(v.plan ?? 'free') });
    io.stdout.write(`created user ${user.email} (${user.plan})\n`);
  },
  async 'set-plan'(store, v, io) {
    const user = await store.setUserPlan(required(v, 'email'), plan(required(v, 'plan')));
    io.stdout.write(`${user.email} is now on the ${user.plan} plan\n`);
  },
  async 'create-key'(store, v, io) {
    const email = required(v, 'email');
    const user = await store.findUserByEmail(email);
    if (user === null) throw new StoreError('not-found', `user not found: ${email}`);
    io.stdout.write(`${await issueApiKey(store, user.id, v.name ?? 'default')}\n`);
  },
  async 'revoke-key'(store, v, io) {
    const prefix = required(v, 'prefix');
    if (!prefix.startsWith('svc_') || prefix.length < 8) {
      throw new UsageError('--prefix must start with svc_ and name at least 4 more characters');
    }
    const revoked = await store.revokeApiKeys(prefix);
    if (revoked === 0) throw new StoreError('not-found', `no active key starts with ${prefix}`);
    io.stdout.write(`revoked ${revoked} key${revoked === 1 ? '' : 's'}\n`);
  },
  async 'create-team'(store, v, io) {
    const team = await store.createTeam({
      name: required(v, 'name'),
      plan: plan(v.plan ?? 'free'),
      hookMode: mode(v.mode ?? 'block'),
    });
    io.stdout.write(`created team ${team.name} (${team.plan}, hook mode ${team.hookMode})\n`);
  },
  async 'add-member'(store, v, io) {
    const team = required(v, 'team');
    const email = required(v, 'email');
    await store.addTeamMember(team, email);
    io.stdout.write(`${email} is now a member of ${team}\n`);
  },
  async 'set-team-mode'(store, v, io) {
    const team = await store.setTeamHookMode(required(v, 'team'), mode(required(v, 'mode')));
    io.stdout.write(`team ${team.name} hook mode: ${team.hookMode}\n`);
  },
  async usage(store, v, io, env) {
    const email = required(v, 'email');
    const user = await store.findUserByEmail(email);
    if (user === null) throw new StoreError('not-found', `user not found: ${email}`);
    const team = await store.findTeamOfUser(user.id);
    const effective = team?.plan ?? user.plan;
    const month = usageMonth(new Date()).key;
    const used = await store.ciRunsUsed(usageAccountOf(user, team), month);
    const limit = loadConfig(env).monthlyCiRuns[effective];
    const whose = team ? ` (team ${team.name})` : '';
    io.stdout.write(
      `${user.email}${whose}: ${used} of ${limit} CI runs used in ${month} on the ${effective} plan\n`,
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
  const store = await openStore(config.databaseUrl);
  try {
    await run(store, values, io, io.env);
    return EXIT.passed;
  } catch (e) {
    if (e instanceof StoreError) {
      io.stderr.write(`svc: ${e.message}\n`);
      return EXIT.error;
    }
    throw e;
  } finally {
    await store.close();
  }
}

function required(values: Values, name: 'email' | 'plan' | 'name' | 'prefix' | 'team' | 'mode'): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
}

function plan(value: string): Plan {
  if (value !== 'free' && value !== 'paid')
    throw new UsageError(`--plan must be free or paid, not "${value}"`);
  return value;
}

function mode(value: string): HookMode {
  if (value !== 'block' && value !== 'warn')
    throw new UsageError(`--mode must be block or warn, not "${value}"`);
  return value;
}
