import type { Logger } from 'pino';
import { type CommandDecision, DECISION_BUDGET_MS, decideCommand } from '../hooks/decide.js';
import type { RiskServices } from '../hooks/risk/assess.js';
import type { HookDecisionRepository } from '../storage/index.js';
import type { HookMode, Principal } from './vocabulary.js';

export interface HookCheckRequest {
  /** The shell line the agent wants to run. */
  command: string;
  /** The caller's choice (a query, a header, a flag); a team member gets the team's mode instead. */
  requestedMode?: HookMode | undefined;
  /** The agent whose hook asked: a hook call's decision is kept in the user's history; others are not. */
  agent?: 'a' | 'b';
  /** The most the registries may take; the decision stays within it whatever they do. */
  budgetMs?: number;
}

/**
 * The hooks' rule: which mode applies, what the line installs and whether any of it is risky, and
 * what is remembered of it (the parsed packages, the decision and its reasons; never the line).
 */
export interface HookCheckService {
  /** A team member always gets the team's mode; anyone else what they asked for, block by default. */
  modeFor(principal: Principal | null, requested: HookMode | undefined): HookMode;
  /** Decides the line for `principal` (null: nobody to record it for, as in `svc check-command`). */
  check(
    principal: Principal | null,
    request: HookCheckRequest,
  ): Promise<CommandDecision & { mode: HookMode }>;
}

export function createHookCheckService(deps: {
  risk: RiskServices;
  decisions?: HookDecisionRepository;
  logger?: Logger;
  now: () => Date;
}): HookCheckService {
  const modeFor: HookCheckService['modeFor'] = (principal, requested) =>
    principal?.team?.hookMode ?? requested ?? 'block';
  return {
    modeFor,
    async check(principal, request) {
      const mode = modeFor(principal, request.requestedMode);
      const decision = await decideCommand(
        request.command,
        mode,
        deps.risk,
        request.budgetMs ?? DECISION_BUDGET_MS,
      );
      const { agent } = request;
      if (
        principal !== null &&
        agent &&
        deps.decisions &&
        decision.isInstall &&
        decision.installs.length > 0
      ) {
        // The decision stands even if it cannot be stored: a lost history row beats a lost verdict.
        await deps.decisions
          .recordHookDecision({
            userId: principal.user.id,
            agent,
            mode,
            decision: decision.decision,
            packages: decision.installs.map(({ ecosystem, name, version }) => ({ ecosystem, name, version })),
            reasons: decision.installs.flatMap((p) => p.reasons),
            at: deps.now(),
          })
          .catch((e: unknown) =>
            deps.logger?.warn(
              { error: e instanceof Error ? e.name : 'unknown', agent },
              'hook decision not stored',
            ),
          );
      }
      return { ...decision, mode };
    },
  };
}
