import { Layout, Notice } from '../layout.js';
import { NewPasswordFields } from './new-password.js';

export interface SetPasswordProps {
  /** The link's user and token; absent when the link was refused (the page then has no form). */
  link?: { email: string; token: string };
  error?: string;
}

/** The page of a one-time link (svc admin create-user / reset-password): the user sets a password. */
export function SetPasswordPage(props: SetPasswordProps) {
  const { link } = props;
  return (
    <Layout title="Set your password">
      <h1>Set your password</h1>
      <Notice kind="error" text={props.error} />
      {link === undefined ? (
        <section class="card" aria-labelledby="new-link-title">
          <h2 id="new-link-title">Getting a new link</h2>
          <p>
            Each link works once, for 24 hours, and only the newest one works. Ask your operator for a new
            link, or <a href="/auth/signin">sign in</a> if you have a password already.
          </p>
        </section>
      ) : (
        <section class="card" aria-labelledby="set-password-title">
          <h2 id="set-password-title">A password for {link.email}</h2>
          <p class="muted">Setting it signs you out everywhere else and signs you in here.</p>
          <form method="post" action="/auth/set-password">
            <input type="hidden" name="token" value={link.token} />
            <NewPasswordFields id="set-password-password" email={link.email} />
            <button type="submit">Set password and sign in</button>
          </form>
        </section>
      )}
    </Layout>
  );
}
