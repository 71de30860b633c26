/**
 * The service's storage seam: every read and write of accounts, keys and usage goes through this
 * interface, implemented once over Kysely for SQLite and PostgreSQL (the only place with SQL).
 */
export type Plan = 'free' | 'paid';
export type HookMode = 'block' | 'warn';

export interface User {
  id: number;
  email: string;
  /** The user's own plan; a team member's effective plan is the team's (see Principal). */
  plan: Plan;
  createdAt: Date;
}

export interface Team {
  id: number;
  name: string;
  plan: Plan;
  hookMode: HookMode;
  createdAt: Date;
}

export interface ApiKeyRecord {
  id: number;
  userId: number;
  name: string;
  /** The first 12 characters of the key (`svc_` + 8): shown in lists, used to revoke. */
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** Who an API key belongs to, as every authenticated request sees it. */
export interface Principal {
  user: User;
  key: ApiKeyRecord;
  team: Team | null;
  /** The team's plan for a member, else the user's own. */
  plan: Plan;
}

/** Monthly CI runs are counted per billing account: the team for a member, else the user. */
export interface UsageAccount {
  kind: 'user' | 'team';
  id: number;
}

export function usageAccountOf(user: Pick<User, 'id'>, team: Pick<Team, 'id'> | null): UsageAccount {
  return team ? { kind: 'team', id: team.id } : { kind: 'user', id: user.id };
}

export type CountResult = { counted: true; used: number } | { counted: false; used: number };

export interface Store {
  createUser(input: { email: string; plan?: Plan }): Promise<User>;
  findUserByEmail(email: string): Promise<User | null>;
  setUserPlan(email: string, plan: Plan): Promise<User>;

  createTeam(input: { name: string; plan?: Plan; hookMode?: HookMode }): Promise<Team>;
  findTeamByName(name: string): Promise<Team | null>;
  /** Adds the user to the team; a user is in at most one team (moving replaces the old membership). */
  addTeamMember(teamName: string, email: string): Promise<void>;
  setTeamHookMode(teamName: string, mode: HookMode): Promise<Team>;
  findTeamOfUser(userId: number): Promise<Team | null>;

  /** Stores a key by its hash (the caller generates it and shows it once). */
  createApiKey(input: { userId: number; name: string; prefix: string; hash: string }): Promise<ApiKeyRecord>;
  /** The principal of an unrevoked key with this hash, or null. */
  findPrincipalByKeyHash(hash: string): Promise<Principal | null>;
  /** Revokes every unrevoked key whose prefix starts with `prefix`; returns how many. */
  revokeApiKeys(prefix: string): Promise<number>;
  listApiKeys(userId: number): Promise<ApiKeyRecord[]>;
  touchApiKey(keyId: number, at: Date): Promise<void>;

  /**
   * Counts one CI run for the account in `month` (`YYYY-MM`, UTC) if fewer than `limit` were counted:
   * atomically, so concurrent calls at the limit cannot both pass.
   */
  countCiRun(account: UsageAccount, month: string, limit: number): Promise<CountResult>;
  ciRunsUsed(account: UsageAccount, month: string): Promise<number>;

  /** Spec 4.3 / contract 4: an install command's decision: parsed packages and reasons only. */
  recordHookDecision(input: HookDecisionInput): Promise<void>;
  listHookDecisions(userId: number, limit: number): Promise<HookDecisionRecord[]>;

  /** A shared cache (registry answers) for instances without Redis; expired entries read as null. */
  cacheGet(key: string, now: Date): Promise<string | null>;
  cachePut(key: string, value: string, expiresAt: Date): Promise<void>;

  /** One round trip; throws DatabaseUnavailableError when the database cannot answer. */
  ping(): Promise<void>;

  close(): Promise<void>;
}

export interface HookDecisionInput {
  userId: number;
  agent: 'a' | 'b';
  mode: HookMode;
  decision: 'allow' | 'deny' | 'ask';
  /** The parsed packages (ecosystem, name, version) as judged. */
  packages: unknown[];
  reasons: string[];
  at: Date;
}

export interface HookDecisionRecord extends HookDecisionInput {
  id: number;
}

/** A write that broke a rule of the data (a duplicate email, an unknown team): one clear message. */
export class StoreError extends Error {
  constructor(
    readonly code: 'duplicate' | 'not-found',
    message: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}
