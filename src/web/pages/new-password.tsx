import type { Child } from 'hono/jsx';
import { MIN_PASSWORD_LENGTH } from '../../services/sign-in.js';

/**
 * The fields of a form that sets a password: first the account's email for password managers (not
 * shown: the page names the account), then any fields of the form's own (`children`), then the new
 * password (field `password`) with the rule stated.
 */
export function NewPasswordFields(props: { id: string; email: string; children?: Child }) {
  const hint = `${props.id}-hint`;
  return (
    <>
      <input name="email" type="email" autocomplete="username" value={props.email} hidden />
      {props.children ?? null}
      <label for={props.id}>New password</label>
      <input
        id={props.id}
        name="password"
        type="password"
        autocomplete="new-password"
        minlength={MIN_PASSWORD_LENGTH}
        required
        aria-describedby={hint}
      />
      <p class="hint" id={hint}>
        At least {MIN_PASSWORD_LENGTH} characters. A passphrase of a few words is easy to remember.
      </p>
    </>
  );
}
