import { generateApiKey } from '../auth/api-keys.js';
import type { AccountRepository, ApiKeyRecord, ApiKeyRepository, Team, User } from '../storage/index.js';
import type { CiRunService } from './ci-runs.js';
import { normalizeEmail } from './emails.js';
import { notFound, storageRules } from './errors.js';
import { teamName } from './team.js';
import { effectivePlan, type HookMode, type Plan } from './vocabulary.js';

/** Users, teams, plans and API keys: what operators (svc admin) and, soon, the dashboard manage. */
export interface AccountService {
  createUser(input: { email: string; plan: Plan }): Promise<User>;
  setPlan(email: string, plan: Plan): Promise<User>;
  createTeam(input: { name: string; plan: Plan; hookMode: HookMode }): Promise<Team>;
  /** Adds the user to the team (as an owner or a member), moving them out of any other. */
  addMember(teamName: string, email: string, role?: 'owner' | 'member'): Promise<void>;
  setTeamMode(teamName: string, mode: HookMode): Promise<Team>;
  /** A new key for the user: returned once, stored only as a hash. */
  issueKey(email: string, name: string): Promise<string>;
  /** Revokes every active key starting with `prefix`; not-found when there is none. */
  revokeKeys(prefix: string): Promise<number>;
  listKeys(userId: number): Promise<ApiKeyRecord[]>;
  /** A user's team, effective plan and this month's CI runs. */
  usageOf(
    email: string,
  ): Promise<{ user: User; team: Team | null; plan: Plan; month: string; used: number; limit: number }>;
}

export function createAccountService(deps: {
  accounts: AccountRepository;
  apiKeys: ApiKeyRepository;
  ciRuns: Pick<CiRunService, 'usage'>;
}): AccountService {
  const { accounts, apiKeys } = deps;
  const userByEmail = async (rawEmail: string) => {
    const email = normalizeEmail(rawEmail);
    const user = await accounts.findUserByEmail(email);
    if (user === null) throw notFound(`user not found: ${email}`);
    return user;
  };
  return {
    // Operators type addresses too: the same normal form and refusals as sign-up (services/emails.ts).
    createUser: async (input) => {
      const email = normalizeEmail(input.email);
      return storageRules(() => accounts.createUser({ ...input, email }));
    },
    setPlan: async (email, plan) => {
      const normal = normalizeEmail(email);
      return storageRules(() => accounts.setUserPlan(normal, plan));
    },
    createTeam: async (input) => {
      const name = teamName(input.name);
      return storageRules(() => accounts.createTeam({ ...input, name }));
    },
    addMember: async (teamName, email, role) => {
      const normal = normalizeEmail(email);
      return storageRules(() => accounts.addTeamMember(teamName, normal, role));
    },
    setTeamMode: (teamName, mode) => storageRules(() => accounts.setTeamHookMode(teamName, mode)),

    async issueKey(email, name) {
      const user = await userByEmail(email);
      const { key, prefix, hash } = generateApiKey();
      await storageRules(() => apiKeys.createApiKey({ userId: user.id, name, prefix, hash }));
      return key;
    },

    async revokeKeys(prefix) {
      const revoked = await apiKeys.revokeApiKeys(prefix);
      if (revoked === 0) throw notFound(`no active key starts with ${prefix}`);
      return revoked;
    },

    listKeys: (userId) => apiKeys.listApiKeys(userId),

    async usageOf(email) {
      const user = await userByEmail(email);
      const team = await accounts.findTeamOfUser(user.id);
      const plan = effectivePlan(user, team);
      return { user, team, plan, ...(await deps.ciRuns.usage({ user, team, plan })) };
    },
  };
}
