import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import { ASSET_PATHS } from './assets.js';

/** The dashboard's sections, in the order of the navigation. */
export const SECTIONS = [
  { path: '/dashboard', label: 'Overview' },
  { path: '/dashboard/keys', label: 'API keys' },
  { path: '/dashboard/scans', label: 'Scans' },
  { path: '/dashboard/team', label: 'Team' },
  { path: '/dashboard/setup', label: 'Setup' },
  { path: '/dashboard/account', label: 'Account' },
] as const;

export type SectionPath = (typeof SECTIONS)[number]['path'];

/** Every page's frame: a skip link, the navigation for a signed-in user, the main region. */
export function Layout(props: {
  title: string;
  /** The signed-in user's email; absent on the sign-in page. */
  email?: string;
  current?: SectionPath;
  /** A page that follows something in progress: without JavaScript it reloads itself this often. */
  refreshSeconds?: number;
  children: Child;
}) {
  return (
    <>
      {/* Without a doctype browsers render in quirks mode (odd margins, box sizes). */}
      {raw('<!DOCTYPE html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{`${props.title} · svc`}</title>
          <link rel="icon" href={ASSET_PATHS.icon} type="image/svg+xml" />
          <link rel="stylesheet" href={ASSET_PATHS.css} />
          <script type="module" src={ASSET_PATHS.js} />
          {props.refreshSeconds === undefined ? null : (
            // With JavaScript the script follows the page's progress instead: no reload.
            <noscript>
              <meta http-equiv="refresh" content={String(props.refreshSeconds)} />
            </noscript>
          )}
        </head>
        <body>
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="top">
            <div class="bar">
              <a class="brand" href={props.email === undefined ? '/' : '/dashboard'}>
                svc
              </a>
              {props.email === undefined ? null : (
                <>
                  <nav aria-label="Dashboard">
                    <ul>
                      {SECTIONS.map((s) => (
                        <li>
                          <a href={s.path} aria-current={s.path === props.current ? 'page' : undefined}>
                            {s.label}
                          </a>
                        </li>
                      ))}
                    </ul>
                  </nav>
                  <div class="who">
                    <span>{props.email}</span>
                    <form method="post" action="/auth/signout">
                      <button class="link" type="submit">
                        Sign out
                      </button>
                    </form>
                  </div>
                </>
              )}
            </div>
          </header>
          <main id="main">{props.children}</main>
        </body>
      </html>
    </>
  );
}

/** A message at the top of a page: what went wrong (role alert) or what was done (role status). */
export function Notice(props: { kind: 'error' | 'ok'; text: string | undefined }) {
  if (props.text === undefined) return null;
  return (
    <div class={`notice ${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.text}
    </div>
  );
}

/** Text to copy: a heading (under a page's section heading), a copy button (shown by the script) and the text. */
export function CopyBlock(props: { id: string; title: string; text: string; note?: Child }) {
  return (
    <section class="card" aria-labelledby={`${props.id}-title`}>
      <div class="copy-row">
        <h3 id={`${props.id}-title`}>{props.title}</h3>
        <button type="button" class="secondary" data-copy={props.id} hidden>
          Copy
        </button>
      </div>
      {props.note ?? null}
      {/* Focusable: a long line scrolls sideways, and keyboard users must be able to scroll it. */}
      <pre id={props.id} tabindex={0}>
        {props.text}
      </pre>
    </section>
  );
}

/**
 * A table with column headings. On a phone each row reflows into a block of "heading: value" lines
 * (the stylesheet shows each cell's heading from its data-label), so nothing is cut off or hidden
 * behind a sideways scroll. `rows` holds one cell per heading.
 */
export function DataTable(props: { headings: string[]; rows: Child[][] }) {
  return (
    <table class="data">
      <thead>
        <tr>
          {props.headings.map((h) => (
            <th scope="col">{h}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((cells) => (
          <tr>
            {cells.map((cell, i) => (
              <td data-label={props.headings[i]}>{cell}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Text whose `backticked` parts are names (the hooks' reasons are written that way for terminals and
 * chat): on a page they are code, not raw backticks.
 */
export function InlineCode(props: { text: string }) {
  const parts = props.text.split(/`([^`]+)`/);
  return <>{parts.map((part, i) => (i % 2 === 1 ? <code>{part}</code> : part))}</>;
}

/** A date as people read it, in UTC (the service does not know the reader's zone). */
export function when(date: Date | null): string {
  if (date === null) return 'never';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
