import type { Child } from 'hono/jsx';
import { MIN_PASSWORD_LENGTH } from '../../services/sign-in.js';
import { Layout, Notice } from '../layout.js';

export interface LandingProps {
  /** Whether "Sign in with GitHub" is configured. */
  oauthA: boolean;
  error?: string;
  info?: string;
  /** The email typed before an error, so it need not be typed again (never the password). */
  email?: string;
  /** Which form the error belongs to. */
  form?: 'signin' | 'signup';
}

/** Sign in, sign up, or sign in with GitHub: all plain forms and links. */
export function LandingPage(props: LandingProps) {
  const emailFor = (form: 'signin' | 'signup') => (props.form === form ? props.email : undefined);
  return (
    <Layout title="Sign in">
      <h1>Sign in to svc</h1>
      <p class="muted">Secret scanning for your repositories, package checks for your coding agents.</p>
      <Notice kind="error" text={props.error} />
      <Notice kind="ok" text={props.info} />
      <div class="grid">
        <CredentialsForm form="signin" title="Sign in" submit="Sign in" email={emailFor('signin')}>
          {props.oauthA ? (
            <>
              <p class="or">or</p>
              <a class="button secondary" href="/auth/codehost-a/start">
                Sign in with GitHub
              </a>
            </>
          ) : null}
        </CredentialsForm>
        <CredentialsForm
          form="signup"
          title="Create an account"
          submit="Create account"
          email={emailFor('signup')}
        />
      </div>
    </Layout>
  );
}

/** One card with an email and password form posting to /auth/{form}; sign-up states the password rule. */
function CredentialsForm(props: {
  form: 'signin' | 'signup';
  title: string;
  submit: string;
  email: string | undefined;
  children?: Child;
}) {
  const { form } = props;
  const signUp = form === 'signup';
  return (
    <section class="card" aria-labelledby={`${form}-title`}>
      <h2 id={`${form}-title`}>{props.title}</h2>
      <form method="post" action={`/auth/${form}`}>
        <label for={`${form}-email`}>Email</label>
        <input
          id={`${form}-email`}
          name="email"
          type="email"
          autocomplete="email"
          required
          value={props.email}
        />
        <label for={`${form}-password`}>Password</label>
        <input
          id={`${form}-password`}
          name="password"
          type="password"
          autocomplete={signUp ? 'new-password' : 'current-password'}
          minlength={signUp ? MIN_PASSWORD_LENGTH : undefined}
          required
          aria-describedby={signUp ? `${form}-password-hint` : undefined}
        />
        {signUp ? (
          <p class="hint" id={`${form}-password-hint`}>
            At least {MIN_PASSWORD_LENGTH} characters. A passphrase of a few words is easy to remember.
          </p>
        ) : null}
        <button type="submit">{props.submit}</button>
      </form>
      {props.children ?? null}
    </section>
  );
}
