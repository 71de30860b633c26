import type { IdentityServices } from '../auth/ci-identity/index.js';
import type { UsageRepository } from '../storage/index.js';
import { type CiIdentity, type CiIdentityRequest, resolveCiIdentity } from './ci-identity.js';
import { planRequired, quotaExhausted, unauthenticated } from './errors.js';
import { usageMonth } from './usage-month.js';
import { type Plan, type Principal, usageAccountOf } from './vocabulary.js';

export type MonthlyCiRuns = Record<Plan, number>;

export interface CountedRun {
  used: number;
  limit: number;
  remaining: number;
  release(): Promise<void>;
}

/**
 * CI runs: which repository a run is for, whether the caller's plan allows it, and the monthly
 * allowance. Each successful download of the scanner is one run.
 */
export interface CiRunService {
  /** The run's repository, if the plan allows it: the Free plan scans proven-public repositories only. */
  authorize(principal: Principal, request: CiIdentityRequest): Promise<CiIdentity>;
  /**
   * Counts one run against the month's allowance, atomically; quota-exhausted when it is used up.
   * `release` gives the run back when the download does not complete.
   */
  count(principal: Principal): Promise<CountedRun>;
  /** This month's runs of the caller's billing account. */
  usage(
    principal: Pick<Principal, 'user' | 'team' | 'plan'>,
  ): Promise<{ month: string; used: number; limit: number }>;
}

export function createCiRunService(deps: {
  identity: IdentityServices;
  usage: UsageRepository;
  monthlyCiRuns: MonthlyCiRuns;
  now: () => Date;
}): CiRunService {
  return {
    async authorize(principal, request) {
      // A key only, never a session: the browser sends its cookie on any cross-site navigation here,
      // and a page of another site would spend the team's runs (issue 29).
      if (principal.key === null) {
        throw unauthenticated(
          'a CI run needs an API key (Authorization: Bearer); a signed-in session is not accepted',
        );
      }
      const identity = await resolveCiIdentity(request, principal.plan, deps.identity);
      if (principal.plan === 'free' && identity.visibility !== 'public') {
        throw planRequired(
          identity.visibility === null
            ? `the Free plan scans public repositories only, and ${identity.repository} could not be confirmed public`
            : `${identity.repository} is ${identity.visibility}: the Free plan scans public repositories only`,
        );
      }
      return identity;
    },

    async count(principal) {
      const limit = deps.monthlyCiRuns[principal.plan];
      const month = usageMonth(deps.now());
      const account = usageAccountOf(principal.user, principal.team);
      const counted = await deps.usage.countCiRun(account, month.key, limit);
      if (!counted.counted) {
        throw quotaExhausted(
          `monthly CI runs used up: ${limit} on the ${principal.plan === 'free' ? 'Free' : 'paid'} plan for ${month.key}`,
          month.secondsToNext,
        );
      }
      return {
        used: counted.used,
        limit,
        remaining: Math.max(0, limit - counted.used),
        // The month it was counted in, even if the download ends after midnight at a month's end.
        release: () => deps.usage.releaseCiRun(account, month.key),
      };
    },

    async usage(principal) {
      const month = usageMonth(deps.now()).key;
      const used = await deps.usage.ciRunsUsed(usageAccountOf(principal.user, principal.team), month);
      return { month, used, limit: deps.monthlyCiRuns[principal.plan] };
    },
  };
}
