import type { KeySummary } from '../../services/api-keys.js';
import { DataTable, Layout, Notice, when } from '../layout.js';

export interface KeysProps {
  email: string;
  keys: KeySummary[];
  /** A key just created: shown on this page once, never again. */
  created?: { key: string; name: string };
  error?: string;
  info?: string;
}

/** Create (the key shown once, with a copy button), list with last use, revoke. */
export function KeysPage(props: KeysProps) {
  return (
    <Layout title="API keys" email={props.email} current="/dashboard/keys">
      <h1>API keys</h1>
      <Notice kind="error" text={props.error} />
      <Notice kind="ok" text={props.info} />
      {props.created === undefined ? null : (
        <section class="card" aria-labelledby="new-key-title">
          <div class="copy-row">
            <h2 id="new-key-title">Your new key “{props.created.name}”</h2>
            <button type="button" class="secondary" data-copy="new-key" hidden>
              Copy
            </button>
          </div>
          <p>
            Copy it now: it is shown only this once. Store it as a secret (SVC_API_KEY) in your CI or agent.
          </p>
          <p>
            <code id="new-key" class="secret">
              {props.created.key}
            </code>
          </p>
        </section>
      )}
      <section class="card" aria-labelledby="create-title">
        <h2 id="create-title">Create a key</h2>
        <form method="post" action="/dashboard/keys">
          <label for="key-name">Name</label>
          <input
            id="key-name"
            name="name"
            type="text"
            maxlength={100}
            placeholder="e.g. CI, laptop agent"
            aria-describedby="key-name-hint"
          />
          <p class="hint" id="key-name-hint">
            Tells your keys apart; optional.
          </p>
          <button type="submit">Create key</button>
        </form>
      </section>
      <section class="card" aria-labelledby="list-title">
        <h2 id="list-title">Your keys</h2>
        {props.keys.length === 0 ? (
          <p class="muted">No active keys.</p>
        ) : (
          <DataTable
            headings={['Name', 'Key', 'Created', 'Last used', 'Action']}
            rows={props.keys.map((k) => [
              k.name,
              <code>{k.prefix}…</code>,
              when(k.createdAt),
              when(k.lastUsedAt),
              <form method="get" action="/dashboard/keys/revoke">
                <input type="hidden" name="prefix" value={k.prefix} />
                <button type="submit" class="danger" aria-label={`Revoke ${k.name} (${k.prefix})`}>
                  Revoke
                </button>
              </form>,
            ])}
          />
        )}
      </section>
    </Layout>
  );
}
