import type { Logger } from 'pino';
import { type CommandDecision, DECISION_BUDGET_MS, decideCommand, notFullyChecked } from '../hooks/decide.js';
import type { Ecosystem } from '../hooks/ecosystems/index.js';
import { assessPackages, type RiskServices } from '../hooks/risk/assess.js';
import { MAX_PACKAGES, type SkippedSpec } from '../hooks/types.js';
import type { HookDecisionRepository } from '../storage/index.js';
import { invalidInput, loggableName } from './errors.js';
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

/** One package to judge without a command line: a name, and the version text when one is meant. */
export interface PackageQuery {
  ecosystem: Ecosystem;
  name: string;
  version?: string | null | undefined;
}

/** A package's verdict as every entry point shows it. */
export interface PackageVerdict {
  ecosystem: Ecosystem;
  name: string;
  version: string | null;
  risky: boolean;
  /** Every reason it is risky, in words. */
  reasons: string[];
  /** Why it could not be fully judged (a registry that did not answer in time), or null. */
  unjudged: string | null;
}

/** The decision on a line as `svc check-command --json` prints it (and the MCP tool returns it). */
export interface CommandReport {
  decision: CommandDecision['decision'];
  installs: Omit<PackageVerdict, 'unjudged'>[];
  skipped: SkippedSpec[];
  message: string;
}

/** Longest name or version text judged: registry names are far shorter; past it the text is not a name. */
const MAX_NAME_LENGTH = 256;

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
  /**
   * Judges up to MAX_PACKAGES named packages with the hooks' rules (malware, typosquats, missing and
   * new names, fresh versions), within the decision budget. Nothing is recorded: no command ran.
   */
  checkPackages(packages: readonly PackageQuery[]): Promise<PackageVerdict[]>;
}

/** The JSON report of a decision: what the command line prints and the MCP tool returns. */
export function commandReport(decision: CommandDecision): CommandReport {
  return {
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
            // An allow of a package that could not be checked says so in the history, not "no reason".
            reasons: decision.installs.flatMap((p) =>
              p.unjudged === null ? p.reasons : [...p.reasons, notFullyChecked(p.name, p.unjudged)],
            ),
            at: deps.now(),
          })
          .catch((e: unknown) =>
            deps.logger?.warn({ error: loggableName(e), agent }, 'hook decision not stored'),
          );
      }
      return { ...decision, mode };
    },
    async checkPackages(packages) {
      if (packages.length === 0) throw invalidInput('no package to check');
      if (packages.length > MAX_PACKAGES) {
        throw invalidInput(`at most ${MAX_PACKAGES} packages per call, not ${packages.length}`);
      }
      for (const p of packages) {
        if (p.name.trim() === '' || p.name.length > MAX_NAME_LENGTH || /\s/.test(p.name)) {
          throw invalidInput(`"${p.name.slice(0, 40)}" is not a package name`);
        }
        if ((p.version ?? '').length > MAX_NAME_LENGTH) throw invalidInput('a version text is too long');
      }
      const verdicts = await assessPackages(
        packages.map((p) => ({ ecosystem: p.ecosystem, name: p.name, version: p.version ?? null })),
        deps.risk,
        AbortSignal.timeout(DECISION_BUDGET_MS),
      );
      return verdicts.map((v) => ({
        ecosystem: v.request.ecosystem,
        name: v.request.name,
        version: v.request.version,
        risky: v.risky,
        reasons: v.reasons,
        unjudged: v.unjudged,
      }));
    },
  };
}
