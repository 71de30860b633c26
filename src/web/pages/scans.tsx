import { summaryOf } from '../../services/scans.js';
import type { ScanRecord } from '../../storage/index.js';
import { DataTable, Layout, Notice, when } from '../layout.js';
import { ScanStatusBadge, scanResultText, shortUrl } from './scan-parts.js';

export interface ScansProps {
  email: string;
  scans: ScanRecord[];
  /** The hosts a URL may name (SVC_SCAN_HOSTS), shown as the field's hint. */
  hosts: readonly string[];
  /** The URL the user typed, kept when the start was refused. */
  url?: string;
  error?: string;
}

/** Start a scan of a public repository; the user's and their team's scans, newest first. */
export function ScansPage(props: ScansProps) {
  return (
    <Layout title="Scans" email={props.email} current="/dashboard/scans">
      <h1>Scans</h1>
      <Notice kind="error" text={props.error} />
      <section class="card" aria-labelledby="start-title">
        <h2 id="start-title">Scan a public repository</h2>
        <form method="post" action="/dashboard/scans">
          <label for="scan-url">Repository URL</label>
          <input
            id="scan-url"
            name="url"
            type="url"
            required
            maxlength={2048}
            value={props.url ?? ''}
            placeholder="https://github.com/owner/name"
            aria-describedby="scan-url-hint"
            aria-invalid={props.error === undefined ? undefined : 'true'}
          />
          <p class="hint" id="scan-url-hint">
            Public repositories on {props.hosts.join(', ')}. The whole history is scanned; credentials are not
            checked, and only masked values are kept.
          </p>
          <button type="submit">Scan</button>
        </form>
      </section>
      <section class="card" aria-labelledby="list-title">
        <h2 id="list-title">Recent scans</h2>
        {props.scans.length === 0 ? (
          <p class="muted">No scans yet.</p>
        ) : (
          <DataTable
            headings={['Repository', 'Status', 'Result', 'Started']}
            rows={props.scans.map((scan) => [
              <a href={`/dashboard/scans/${scan.id}`}>{shortUrl(scan.url)}</a>,
              <ScanStatusBadge status={scan.status} summary={summaryOf(scan)} />,
              scanResultText(scan, summaryOf(scan)),
              when(scan.createdAt),
            ])}
          />
        )}
      </section>
    </Layout>
  );
}
