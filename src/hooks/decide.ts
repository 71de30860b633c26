import { PACKAGE_CAP_REASON, parseCommandLine } from './command/parse-command.js';
import { assessPackages, type RiskServices, type Verdict } from './risk/assess.js';
import type { PackageRequest, SkippedSpec } from './types.js';

export type Permission = 'allow' | 'deny' | 'ask';
/** What a risky install gets: denied (block) or asked about (warn). */
export type DecisionMode = 'block' | 'warn';

/** The whole decision stays under 5 s whatever the registries do (README: "Guarding coding agents"); this leaves room. */
export const DECISION_BUDGET_MS = 4000;

export interface CommandDecision {
  decision: Permission;
  /** False for a line that installs nothing: allowed at once, nothing stored. */
  isInstall: boolean;
  /** `unjudged`: why a package could not be fully checked (a registry down or slow), else null. */
  installs: (PackageRequest & { risky: boolean; reasons: string[]; unjudged: string | null })[];
  skipped: SkippedSpec[];
  /** What the user and the agent are told. */
  message: string;
}

/**
 * A line that is not an install is allowed at once; an install is judged package by
 * package; anything risky is denied in block mode and asked about in warn mode.
 */
export async function decideCommand(
  line: string,
  mode: DecisionMode,
  services: RiskServices,
  budgetMs = DECISION_BUDGET_MS,
): Promise<CommandDecision> {
  const parsed = parseCommandLine(line);
  if (!parsed.isInstall || parsed.installs.length === 0) {
    return {
      decision: 'allow',
      isInstall: parsed.isInstall,
      installs: [],
      skipped: parsed.skipped,
      message: parsed.isInstall ? 'svc: no package to check in this install' : 'svc: not a package install',
    };
  }
  const verdicts = await assessPackages(parsed.installs, services, AbortSignal.timeout(budgetMs));
  const risky = verdicts.filter((v) => v.risky);
  const decision: Permission = risky.length === 0 ? 'allow' : mode === 'block' ? 'deny' : 'ask';
  return {
    decision,
    isInstall: true,
    installs: verdicts.map((v) => ({
      ...v.request,
      risky: v.risky,
      reasons: v.reasons,
      unjudged: v.unjudged,
    })),
    skipped: parsed.skipped,
    message: messageFor(decision, verdicts, parsed.skipped),
  };
}

function messageFor(decision: Permission, verdicts: Verdict[], skipped: SkippedSpec[]): string {
  const lines: string[] = [];
  const risky = verdicts.filter((v) => v.risky);
  const partial = verdicts.some((v) => v.unjudged !== null);
  if (decision === 'allow') {
    lines.push(
      `svc: checked ${names(verdicts)}: nothing risky found${partial ? ' in what could be checked' : ''}`,
    );
  } else if (decision === 'deny') {
    lines.push(`svc: blocked: ${names(risky)} looks risky`);
  } else {
    lines.push(`svc: ${names(risky)} looks risky; confirm before installing`);
  }
  for (const v of risky) for (const reason of v.reasons) lines.push(`- ${reason}`);
  for (const v of verdicts) {
    if (v.unjudged !== null) lines.push(`- ${notFullyChecked(v.request.name, v.unjudged)}`);
  }
  // Past the cap nothing was judged: the user is told, so an allow is not read as covering them.
  for (const s of skipped) if (s.why === PACKAGE_CAP_REASON) lines.push(`- ${s.spec}: ${s.why}`);
  return lines.join('\n');
}

/** What a package that could not be fully checked is noted with, in the message and the history. */
export function notFullyChecked(name: string, why: string): string {
  return `\`${name}\` was not fully checked: ${why}`;
}

function names(verdicts: Verdict[]): string {
  return verdicts.map((v) => `\`${v.request.name}\``).join(', ');
}
