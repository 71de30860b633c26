import { type Finding, type FindingVerifier, isFailing, type VerificationResult } from '../scanner/index.js';
import type { Check, ProviderUrls } from './check.js';
import { unchecked } from './outcome.js';
import { CHECKS } from './provider.js';

/** Each check's timeout, and how many distinct credentials a scan checks (README: "Is it still live?"). */
export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;
export const MAX_CREDENTIALS_PER_SCAN = 25;
/** A small bound: enough to finish 25 answering checks in about one round trip's time. */
export const CHECK_CONCURRENCY = 8;
/**
 * All checks share one deadline, one timeout and a fifth (12 s by default), so a provider that hangs
 * adds about one timeout to the scan, not one per queued credential.
 */
const DEADLINE_FACTOR = 1.2;

export interface VerifierOptions {
  urls: ProviderUrls;
  timeoutMs?: number;
  maxCredentials?: number;
  concurrency?: number;
}

/** One credential and every finding of it: checked once, its status applied to all. */
interface Credential {
  check: Check;
  secret: string;
  findings: Finding[];
}

export function createVerifier(options: VerifierOptions): FindingVerifier {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const limit = options.maxCredentials ?? MAX_CREDENTIALS_PER_SCAN;
  const concurrency = options.concurrency ?? CHECK_CONCURRENCY;

  return async (findings, secretOf) => {
    const results = new Map<Finding, VerificationResult>();
    const credentials = new Map<string, Credential>();
    for (const finding of prioritized(findings)) {
      const check = CHECKS[finding.ruleId];
      const secret = secretOf(finding);
      if (typeof check !== 'function') {
        results.set(finding, unchecked(check.never));
      } else if (secret !== undefined) {
        const key = `${finding.ruleId}\0${secret}`;
        const credential = credentials.get(key) ?? { check, secret, findings: [] };
        credential.findings.push(finding);
        credentials.set(key, credential);
      }
    }

    const queue = [...credentials.values()];
    for (const skipped of queue.splice(limit)) {
      const result = unchecked(`not checked: at most ${limit} credentials are checked per scan`);
      for (const f of skipped.findings) results.set(f, result);
    }
    // Not AbortSignal.timeout: its TimeoutError would make a check the deadline cut short read as its
    // provider's own timeout ("did not answer in time") instead of "the time for checks ran out".
    const stop = new AbortController();
    const timer = setTimeout(
      () => stop.abort(new Error('the time for checks ran out')),
      Math.round(timeoutMs * DEADLINE_FACTOR),
    );
    const deadline = stop.signal;
    const worker = async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        const result = await runCheck(next, options.urls, timeoutMs, deadline);
        for (const f of next.findings) results.set(f, result);
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
    } finally {
      clearTimeout(timer);
    }
    return results;
  };
}

/** Failing findings first, so the 25 checks go to the credentials that fail the scan. */
function prioritized(findings: readonly Finding[]): Finding[] {
  return [...findings].sort((a, b) => Number(isFailing(b)) - Number(isFailing(a)));
}

async function runCheck(
  credential: Credential,
  urls: ProviderUrls,
  timeoutMs: number,
  deadline: AbortSignal,
): Promise<VerificationResult> {
  if (deadline.aborted) return unchecked('not checked: the time for checks ran out');
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), deadline]);
  try {
    return await credential.check(credential.secret, { urls, signal });
  } catch {
    // Deliberately not the error's message: it could hold the credential.
    return unchecked('the check failed unexpectedly');
  }
}
