import { Layout } from '../../web/layout.js';

export interface SignInPageProps {
  nonce: string;
  returnTo: string;
  csrf: string;
  linksEnabled: boolean;
  identityProviderHost: string | null;
  error?: string | undefined;
}

/** The sign-in landing: a one-time link (embedded default) and/or the organisation's identity provider. */
export function SignInPage(props: SignInPageProps) {
  return (
    <Layout title="Sign in" nonce={props.nonce}>
      <h1>Sign in to the console</h1>
      {props.error ? (
        <div class="error" role="alert">
          {props.error}
        </div>
      ) : null}
      {props.identityProviderHost ? (
        <section class="card">
          <h2>Your organisation's sign-in</h2>
          <form method="get" action="/console/sign-in/oidc">
            <input type="hidden" name="return_to" value={props.returnTo} />
            <button type="submit">Sign in with {props.identityProviderHost}</button>
          </form>
        </section>
      ) : null}
      {props.linksEnabled ? (
        <section class="card">
          <h2>Sign in with a one-time link</h2>
          <p class="hint">
            An administrator of this service creates one with{' '}
            <code>npm run -s admin -- login-link --email you@example.com</code>. A link works once, for 15 minutes.
          </p>
          <p class="hint">
            With the embedded database the command opens the data folder (<code>DATA_DIR</code>), which only one process
            may hold: stop the server first (Ctrl+C in its terminal), run the command, then <code>npm start</code> again
            and open the link. Every <code>npm start</code> also prints a fresh link for the demo admin. (With{' '}
            <code>DATABASE_URL</code> the server may keep running.)
          </p>
          <form method="post" action="/console/sign-in/link">
            <input type="hidden" name="csrf_token" value={props.csrf} />
            <input type="hidden" name="return_to" value={props.returnTo} />
            <label for="sign-in-link">Sign-in link</label>
            <input
              type="text"
              id="sign-in-link"
              name="link"
              required
              autocomplete="off"
              spellcheck={false}
              placeholder="http://…/console/sign-in/link?token=…"
            />
            <div class="actions">
              <button type="submit">Sign in</button>
            </div>
          </form>
        </section>
      ) : null}
      {!props.linksEnabled && !props.identityProviderHost ? (
        <div class="error" role="alert">
          No sign-in method is configured. Set CONSOLE_OIDC_ISSUER and CONSOLE_OIDC_CLIENT_ID, or enable
          CONSOLE_SIGN_IN_LINKS.
        </div>
      ) : null}
    </Layout>
  );
}

/** Opening a link only shows this page; the POST spends it, so a mail scanner fetching the link does not. */
export function ConfirmLinkPage(props: { nonce: string; token: string; csrf: string; returnTo: string }) {
  return (
    <Layout title="Sign in" nonce={props.nonce}>
      <h1>Sign in to the console</h1>
      <section class="card">
        <p>This one-time link signs you in to the console of this service.</p>
        <form method="post" action="/console/sign-in/link">
          <input type="hidden" name="csrf_token" value={props.csrf} />
          <input type="hidden" name="link" value={props.token} />
          <input type="hidden" name="return_to" value={props.returnTo} />
          <button type="submit">Continue</button>
        </form>
      </section>
    </Layout>
  );
}
