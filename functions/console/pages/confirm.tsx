import type { Child } from 'hono/jsx';
import { Layout, type HeaderSession } from '../../web/layout.js';

export interface ConfirmPageProps {
  nonce: string;
  session: HeaderSession;
  active?: Parameters<typeof Layout>[0]['active'];
  title: string;
  /** What happens, in plain words. */
  children: Child;
  /** A stronger warning shown above the buttons (e.g. "this is the key in use"). */
  warning?: string | undefined;
  action: string;
  confirmLabel: string;
  cancelHref: string;
}

/**
 * The confirmation step of a destructive action: the GET shows this page, only its form's POST acts.
 * No JavaScript `confirm`; Cancel is a plain link back, and the confirm button is not the default
 * focus target so a stray Enter on the previous page cannot reach it.
 */
export function ConfirmPage(props: ConfirmPageProps) {
  return (
    <Layout title={props.title} nonce={props.nonce} session={props.session} active={props.active}>
      <h1>{props.title}</h1>
      <section class="card" aria-labelledby="confirm-heading">
        <h2 id="confirm-heading" class="visually-hidden">
          Confirm
        </h2>
        <div>{props.children}</div>
        {props.warning ? (
          <div class="error" role="alert">
            {props.warning}
          </div>
        ) : null}
        <form method="post" action={props.action}>
          <input type="hidden" name="csrf_token" value={props.session.csrf} />
          <input type="hidden" name="confirm" value="yes" />
          <div class="actions">
            <button type="submit" class="danger">
              {props.confirmLabel}
            </button>
            <a href={props.cancelHref}>Cancel</a>
          </div>
        </form>
      </section>
    </Layout>
  );
}
