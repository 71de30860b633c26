import {
  type Finding,
  IGNORE_HINT,
  ignoreLineOf,
  RULE_TITLES,
  type ScanSummary,
  shortCommit,
  visible,
} from '../../scanner/index.js';
import type { ScanRecord, ScanScope } from '../../storage/index.js';
import { Layout, Notice, when } from '../layout.js';
import { ScanStatusBadge, scanResultText, shortUrl } from './scan-parts.js';

export interface ScanProps {
  email: string;
  scan: ScanRecord;
  summary: ScanSummary | null;
  groups: { failing: Finding[]; rest: Finding[] };
}

/**
 * One scan. While it is queued or running, the page follows it: the script polls the API and
 * updates the progress (the `data-scan` section), and reloads once it ends; without JavaScript the
 * page refreshes itself every few seconds (the `noscript` refresh in the head). Once done, its
 * findings as the markdown report has them: failing code findings first, the rest collapsed.
 */
export function ScanPage(props: ScanProps) {
  const { scan, summary, groups } = props;
  const live = scan.status === 'queued' || scan.status === 'running';
  const title = shortUrl(scan.url);
  return (
    <Layout
      title={`Scan of ${title}`}
      email={props.email}
      current="/dashboard/scans"
      refreshSeconds={live ? 3 : undefined}
    >
      <p>
        <a href="/dashboard/scans">← All scans</a>
      </p>
      <h1>{title}</h1>
      <section
        class="card"
        aria-labelledby="state-title"
        data-scan={live ? `/api/scans/${scan.id}` : undefined}
      >
        <div class="copy-row">
          <h2 id="state-title">Status</h2>
          <span data-scan-status>
            <ScanStatusBadge status={scan.status} summary={summary} />
          </span>
        </div>
        <p class="muted">
          <a href={scan.url}>{scan.url}</a> · started {when(scan.startedAt ?? scan.createdAt)}
          {scan.finishedAt === null ? '' : ` · finished ${when(scan.finishedAt)}`}
        </p>
        {live ? (
          <>
            <progress
              value={scan.progress.done}
              max={Math.max(1, scan.progress.total)}
              aria-label="Commits scanned"
              data-scan-progress
            />
            <output data-scan-text>{scanResultText(scan, summary) || 'waiting for a worker'}</output>
          </>
        ) : null}
        {live ? (
          <form method="post" action={`/dashboard/scans/${scan.id}/cancel`}>
            <button type="submit" class="danger">
              Cancel scan
            </button>
          </form>
        ) : null}
        {scan.status === 'done' && scan.scope !== null ? <ScopeLine scope={scan.scope} /> : null}
        {scan.status === 'failed' ? <Notice kind="error" text={`The scan failed: ${scan.error}.`} /> : null}
        {scan.status === 'canceled' ? <Notice kind="ok" text="The scan was canceled." /> : null}
      </section>
      {scan.status === 'done' && summary !== null ? <Results summary={summary} groups={groups} /> : null}
    </Layout>
  );
}

const count = (n: number, one: string, many: string) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** What the scan read: every commit reachable from the clone's branches and tags. */
function ScopeLine(props: { scope: ScanScope }) {
  const { scope } = props;
  return (
    <p data-scan-scope>
      Scanned {count(scope.commits, 'commit', 'commits')}: the whole history of{' '}
      {count(scope.branches, 'branch', 'branches')} and {count(scope.tags, 'tag', 'tags')}
      {scope.defaultBranch === null ? '' : `; .svcignore read from ${scope.defaultBranch}`}.
      {scope.incomplete ? ' Some commits could not be read (objects missing from the repository).' : ''}
    </p>
  );
}

function Results(props: { summary: ScanSummary; groups: ScanProps['groups'] }) {
  const { summary, groups } = props;
  return (
    <>
      <section class="card" aria-labelledby="findings-title">
        <h2 id="findings-title">
          {summary.failing === 0
            ? 'No failing findings in code'
            : `Failing findings in code: ${summary.failing}`}
        </h2>
        <p class="muted">
          {summary.total === 0
            ? 'Nothing found in the whole history.'
            : `${summary.total} in all: ${summary.byLocation.code} in code, ${summary.byLocation.test} in tests, ` +
              `${summary.byLocation.example} in examples, ${summary.byLocation.docs} in docs; ${summary.ignored} ignored.`}
        </p>
        {groups.failing.length === 0 ? null : <FindingList findings={groups.failing} idPrefix="f" />}
        {summary.total === 0 ? null : <p class="hint">{IGNORE_HINT}</p>}
      </section>
      {groups.rest.length === 0 ? null : (
        <details class="card">
          <summary>
            Other locations ({groups.rest.length} {groups.rest.length === 1 ? 'finding' : 'findings'}, not
            failing)
          </summary>
          <FindingList findings={groups.rest} idPrefix="o" withLocation />
        </details>
      )}
    </>
  );
}

/**
 * Findings as cards rather than a wide table: each has several long values (path, ignore line) that
 * must stay readable on a phone. Every value from the repository is shown with its unprintable and
 * bidirectional characters made visible, as in the text reports.
 */
function FindingList(props: { findings: Finding[]; idPrefix: string; withLocation?: boolean }) {
  return (
    <ol class="findings">
      {props.findings.map((f, i) => {
        const id = `ignore-${props.idPrefix}${i}`;
        const where = `${visible(f.path)}:${f.line}`;
        return (
          <li>
            <h3>
              {RULE_TITLES[f.ruleId] ?? f.ruleId}
              {props.withLocation ? <span class="badge ask">{f.location}</span> : null}
              {f.ignored ? <span class="badge allow">ignored</span> : null}
            </h3>
            <dl>
              <dt>File</dt>
              <dd>
                <code>{where}</code>
              </dd>
              <dt>Commit</dt>
              <dd>
                <code>{shortCommit(f.commit)}</code> · {visible(f.author)} · {f.date.slice(0, 10)}
              </dd>
              <dt>Secret</dt>
              <dd>
                <code>{visible(f.maskedValue)}</code>
              </dd>
              <dt>Ignore line</dt>
              <dd class="copy-row">
                <code id={id}>{ignoreLineOf(f.fingerprint)}</code>
                <button
                  type="button"
                  class="secondary"
                  data-copy={id}
                  aria-label={`Copy ignore line for ${where}`}
                  hidden
                >
                  Copy ignore line
                </button>
              </dd>
            </dl>
          </li>
        );
      })}
    </ol>
  );
}
