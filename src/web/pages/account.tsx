import { Layout, Notice } from '../layout.js';
import { NewPasswordFields } from './new-password.js';

export interface AccountProps {
  email: string;
  /** Whether the account has a password (GitHub-only accounts may set a first one). */
  hasPassword: boolean;
  error?: string;
  info?: string;
}

/** The signed-in user's own account: change (or set) the password, sign out everywhere. */
export function AccountPage(props: AccountProps) {
  const { hasPassword } = props;
  return (
    <Layout title="Account" email={props.email} current="/dashboard/account">
      <h1>Account</h1>
      <Notice kind="error" text={props.error} />
      <Notice kind="ok" text={props.info} />
      <section class="card" aria-labelledby="password-title">
        <h2 id="password-title">{hasPassword ? 'Change your password' : 'Set a password'}</h2>
        <p class="muted">
          {hasPassword
            ? 'Your other sessions end: every other browser signed in as you is signed out.'
            : 'Your account has no password yet (you sign in with GitHub). With one you can also sign in with your email; your other sessions end.'}
        </p>
        <form method="post" action="/dashboard/account/password">
          <NewPasswordFields id="new-password" email={props.email}>
            {hasPassword ? (
              <>
                <label for="current-password">Current password</label>
                <input
                  id="current-password"
                  name="current"
                  type="password"
                  autocomplete="current-password"
                  required
                />
              </>
            ) : null}
          </NewPasswordFields>
          <button type="submit">{hasPassword ? 'Change password' : 'Set password'}</button>
        </form>
      </section>
      <section class="card" aria-labelledby="everywhere-title">
        <h2 id="everywhere-title">Sign out everywhere</h2>
        <p class="muted">
          Ends every session of yours, in every browser and on every device, this one included. API keys keep
          working; revoke them on the <a href="/dashboard/keys">API keys</a> page.
        </p>
        <form method="post" action="/dashboard/account/signout-everywhere">
          <button type="submit" class="secondary">
            Sign out everywhere
          </button>
        </form>
      </section>
    </Layout>
  );
}
