import { Layout } from '../layout.js';

/**
 * The second step of something that cannot be undone (removing a member, leaving a team): a plain
 * page with a Confirm button (a form post) and Cancel (a link back), so it works without JavaScript.
 */
export interface ConfirmProps {
  email: string;
  title: string;
  /** What will happen, in a sentence or two. */
  text: string;
  action: string;
  /** Hidden form fields the post carries. */
  fields?: Record<string, string>;
  confirm: string;
  /** Where Cancel goes back to. */
  cancel: string;
}

export function ConfirmPage(props: ConfirmProps) {
  return (
    <Layout title={props.title} email={props.email} current="/dashboard/team">
      <h1>{props.title}</h1>
      <section class="card confirm">
        <p>{props.text}</p>
        <form method="post" action={props.action} class="row-actions">
          {Object.entries(props.fields ?? {}).map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          <button type="submit" class="danger">
            {props.confirm}
          </button>
          <a class="button secondary" href={props.cancel}>
            Cancel
          </a>
        </form>
      </section>
    </Layout>
  );
}
