import type { HookDecisionRepository } from '../storage/index.js';
import type { CiRunService } from './ci-runs.js';
import type { Plan, Principal } from './vocabulary.js';

/** Verdicts shown on the overview. */
const RECENT_VERDICTS = 10;

/** A hook verdict as the dashboard shows it: the packages and reasons only (never a command line). */
export interface VerdictSummary {
  at: Date;
  agent: 'a' | 'b';
  decision: 'allow' | 'deny' | 'ask';
  packages: string[];
  reasons: string[];
}

export interface Overview {
  email: string;
  plan: Plan;
  team: string | null;
  ciRuns: { month: string; used: number; limit: number };
  verdicts: VerdictSummary[];
}

/** What the dashboard's overview page shows. */
export interface OverviewService {
  overviewOf(principal: Principal): Promise<Overview>;
}

export function createOverviewService(deps: {
  ciRuns: Pick<CiRunService, 'usage'>;
  decisions: HookDecisionRepository;
}): OverviewService {
  return {
    async overviewOf(principal) {
      const [ciRuns, decisions] = await Promise.all([
        deps.ciRuns.usage(principal),
        deps.decisions.listHookDecisions(principal.user.id, RECENT_VERDICTS),
      ]);
      return {
        email: principal.user.email,
        plan: principal.plan,
        team: principal.team?.name ?? null,
        ciRuns,
        verdicts: decisions.map((d) => ({
          at: d.at,
          agent: d.agent,
          decision: d.decision,
          packages: d.packages.map(packageLabel),
          reasons: d.reasons,
        })),
      };
    },
  };
}

/** `npm lodahs@1.0.0`, from the stored parsed package (ecosystem, name, version). */
function packageLabel(stored: unknown): string {
  const p = (stored ?? {}) as { ecosystem?: unknown; name?: unknown; version?: unknown };
  const name = typeof p.name === 'string' ? p.name : '?';
  const version = typeof p.version === 'string' && p.version !== '' ? `@${p.version}` : '';
  return `${typeof p.ecosystem === 'string' ? `${p.ecosystem} ` : ''}${name}${version}`;
}
