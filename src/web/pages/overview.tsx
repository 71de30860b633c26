import type { Overview } from '../../services/overview.js';
import { DataTable, InlineCode, Layout, when } from '../layout.js';

const DECISION_WORDS = { allow: 'allowed', deny: 'blocked', ask: 'asked' } as const;

/** Plan, this month's CI runs against the limit, and the latest hook verdicts (packages, reasons). */
export function OverviewPage(props: { overview: Overview; linkA?: boolean }) {
  const { overview: o } = props;
  const share =
    o.ciRuns.limit === 0 ? 100 : Math.min(100, Math.round((o.ciRuns.used / o.ciRuns.limit) * 100));
  return (
    <Layout title="Overview" email={o.email} current="/dashboard">
      <h1>Overview</h1>
      <div class="grid">
        <section class="card" aria-labelledby="plan-title">
          <h2 id="plan-title">Plan</h2>
          <p class="stat">{o.plan === 'paid' ? 'Paid' : 'Free'}</p>
          <p class="muted">{o.team === null ? 'Your own account.' : `Through your team ${o.team}.`}</p>
        </section>
        <section class="card" aria-labelledby="runs-title">
          <h2 id="runs-title">CI runs in {o.ciRuns.month}</h2>
          <p class="stat">
            {o.ciRuns.used} <span class="muted">of {o.ciRuns.limit}</span>
          </p>
          <progress
            value={o.ciRuns.used}
            max={Math.max(1, o.ciRuns.limit)}
            aria-label="CI runs used this month"
          >
            {`${share}%`}
          </progress>
        </section>
      </div>
      {props.linkA ? (
        <p class="muted">
          Sign in with GitHub as well: <a href="/auth/codehost-a/start">link your GitHub account</a> to this
          one (an account is never linked by its email alone).
        </p>
      ) : null}
      <section class="card" aria-labelledby="verdicts-title">
        <h2 id="verdicts-title">Recent hook verdicts</h2>
        {o.verdicts.length === 0 ? (
          <p class="muted">
            No package installs checked yet. <a href="/dashboard/setup">Set up the agent hooks</a> to see them
            here.
          </p>
        ) : (
          <DataTable
            headings={['When', 'Verdict', 'Packages', 'Reasons']}
            rows={o.verdicts.map((v) => [
              when(v.at),
              <span class={`badge ${v.decision}`}>{DECISION_WORDS[v.decision]}</span>,
              v.packages.map((p) => (
                <div>
                  <code>{p}</code>
                </div>
              )),
              v.reasons.length === 0 ? (
                <span class="muted">none</span>
              ) : (
                v.reasons.map((r) => (
                  <div>
                    <InlineCode text={r} />
                  </div>
                ))
              ),
            ])}
          />
        )}
      </section>
    </Layout>
  );
}
