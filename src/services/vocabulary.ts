import type { ApiKeyRecord, Team, User } from '../storage/index.js';

/** The product's words, shared by every entry point (HTTP, MCP, dashboard, CLI). */

/** A plan decides the monthly CI runs and whether private repositories may be scanned in CI. */
export const PLANS = ['free', 'paid'] as const;
export type Plan = (typeof PLANS)[number];

/** What the hooks do with a risky install: deny it (block), or ask the user (warn). */
export const HOOK_MODES = ['block', 'warn'] as const;
export type HookMode = (typeof HOOK_MODES)[number];

export const isPlan = (value: string): value is Plan => (PLANS as readonly string[]).includes(value);
export const isHookMode = (value: string): value is HookMode =>
  (HOOK_MODES as readonly string[]).includes(value);

/** Who is calling, as every authenticated request sees it: by an API key, or by a dashboard session. */
export interface Principal {
  user: User;
  /** The key the request carried; null when it was signed in by a session. */
  key: ApiKeyRecord | null;
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

/** A team member's plan is the team's; a user outside any team has their own. */
export function effectivePlan(user: Pick<User, 'plan'>, team: Pick<Team, 'plan'> | null): Plan {
  return team ? team.plan : user.plan;
}
