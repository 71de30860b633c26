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
