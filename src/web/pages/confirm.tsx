import type { Child } from 'hono/jsx';
import { Layout, type SectionPath } from '../layout.js';

export interface ConfirmProps {
  email: string;
  current: SectionPath;
  /** The question, as the page's heading: "Revoke the key “CI”?" */
  question: string;
  /** What happens once confirmed. */
  consequence: Child;
  /** Where the confirmed form posts, with its hidden fields (`confirm=1` is added). */
  action: string;
  fields: Record<string, string>;
  confirmLabel: string;
  /** Where "Cancel" goes back to, changing nothing. */
  cancelHref: string;
}

/**
 * The second step of something that cannot be undone: a page of its own (no script needed) that says
 * what will happen, with the one button that does it and a way back that does nothing.
 */
export function ConfirmPage(props: ConfirmProps) {
  return (
    <Layout title={props.question} email={props.email} current={props.current}>
      <h1>{props.question}</h1>
      <section class="card">
        <p>{props.consequence}</p>
        <form method="post" action={props.action} class="actions">
          {Object.entries(props.fields).map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          <input type="hidden" name="confirm" value="1" />
          <button type="submit" class="danger">
            {props.confirmLabel}
          </button>
          <a class="button secondary" href={props.cancelHref}>
            Cancel
          </a>
        </form>
      </section>
    </Layout>
  );
}
