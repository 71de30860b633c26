import { Layout, Notice } from '../layout.js';
import { sentence } from '../page-support.js';

/**
 * What a page request gets when the app refuses it before any page could answer (a rate limit,
 * the database down): the message in the dashboard's frame, with a way back, rather than JSON.
 */
export function ErrorPage(props: { status: number; message: string }) {
  return (
    <Layout title={props.status === 429 ? 'Too many requests' : 'Something went wrong'}>
      <h1>{props.status === 429 ? 'Too many requests' : 'Something went wrong'}</h1>
      <Notice kind="error" text={sentence(props.message)} />
      <p>
        <a href="/dashboard">Back to the dashboard</a>
      </p>
    </Layout>
  );
}

/**
 * Whether a refusal goes to a browser on a page (answered in HTML) rather than to a script (JSON, as
 * the API answers): a page's path, asked for by a client that accepts HTML.
 */
export function wantsPage(path: string, accept: string | undefined): boolean {
  const page =
    path === '/' || path.startsWith('/auth/') || path === '/dashboard' || path.startsWith('/dashboard/');
  return page && accept !== undefined && accept.includes('text/html');
}

/** An unknown page asked for by a browser: a page that says so, with a way back, rather than JSON. */
export function NotFoundPage(props: { path: string }) {
  return (
    <Layout title="Page not found">
      <h1>Page not found</h1>
      <p>
        There is no page at <code>{props.path}</code>. It may have moved, or the link may be mistyped.
      </p>
      <p>
        <a href="/">Go to the dashboard</a>
      </p>
    </Layout>
  );
}

/**
 * Whether an unknown path answers a page: a browser navigating (it accepts HTML) anywhere but the
 * machine-facing paths, whose clients read the JSON error (contract 4).
 */
export function wantsNotFoundPage(path: string, accept: string | undefined): boolean {
  const machine = path.startsWith('/api/') || path === '/mcp' || path.startsWith('/mcp/');
  return !machine && accept !== undefined && accept.includes('text/html');
}
