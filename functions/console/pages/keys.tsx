import { raw } from 'hono/html';
import type { Bundle } from '../../identity/scopes.js';
import { Flash, Layout, DangerLink, type HeaderSession } from '../../web/layout.js';

export interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  bundle_label: string;
  owner_email: string;
  own: boolean;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  expired: boolean;
}

export interface KeysPageProps {
  nonce: string;
  session: HeaderSession;
  keys: KeyRow[];
  bundles: { id: Bundle; label: string; scopeCount: number }[];
  expirations: { value: string; label: string }[];
  /** A key just created: its plaintext, shown this once. */
  created?: { name: string; key: string } | undefined;
  notice?: string | undefined;
  error?: string | undefined;
}

const day = (iso: string | null, none: string) => (iso ? iso.slice(0, 10) : none);

export function KeysPage(props: KeysPageProps) {
  return (
    <Layout title="API keys" nonce={props.nonce} session={props.session} active="keys">
      <h1>API keys</h1>
      <Flash error={props.error} notice={props.notice} />
      {props.created ? (
        <section class="card" aria-labelledby="created-heading">
          <h2 id="created-heading">Key "{props.created.name}" created</h2>
          <p>
            Copy it now: this is the only time it is shown. The service keeps only a hash; a lost key is replaced, not
            recovered.
          </p>
          <label for="new-key">Your new API key</label>
          <input type="text" id="new-key" class="secret" readonly value={props.created.key} />
          <div class="actions">
            <button type="button" id="copy-key" class="secondary" data-copy-target="new-key">
              Copy
            </button>
            <span id="copy-status" role="status" class="hint"></span>
          </div>
          <script nonce={props.nonce}>{raw(COPY_SCRIPT)}</script>
        </section>
      ) : null}
      <section class="card" aria-labelledby="list-heading">
        <h2 id="list-heading">Active keys</h2>
        {props.keys.length === 0 ? (
          <p>No keys yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Bundle</th>
                <th scope="col">Owner</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="hint">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {props.keys.map((k) => (
                <tr>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{k.bundle_label}</td>
                  <td>{k.own ? 'you' : k.owner_email}</td>
                  <td>{k.expired ? `expired ${day(k.expires_at, '')}` : day(k.expires_at, 'never')}</td>
                  <td>{day(k.last_used_at, 'never')}</td>
                  <td>
                    <DangerLink href={`/console/keys/${k.id}/revoke`} label={`Revoke key ${k.name}`} text="Revoke…" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section class="card" aria-labelledby="create-heading">
        <h2 id="create-heading">Create a key</h2>
        <form method="post" action="/console/keys">
          <input type="hidden" name="csrf_token" value={props.session.csrf} />
          <label for="key-name">Name</label>
          <input type="text" id="key-name" name="name" required maxlength={120} />
          <label for="key-bundle">Permissions bundle</label>
          <select id="key-bundle" name="bundle">
            {props.bundles.map((b) => (
              <option value={b.id} selected={b.id === 'customer_agent'}>
                {b.label} ({b.scopeCount} scopes)
              </option>
            ))}
          </select>
          <label for="key-expiration">Expiration</label>
          <select id="key-expiration" name="expires_in_days">
            {props.expirations.map((e) => (
              <option value={e.value} selected={e.value === '90'}>
                {e.label}
              </option>
            ))}
          </select>
          <div class="actions">
            <button type="submit">Create key</button>
          </div>
        </form>
      </section>
    </Layout>
  );
}

/** Progressive enhancement: without JavaScript the key is still in a selectable field. */
const COPY_SCRIPT = `
document.getElementById('copy-key')?.addEventListener('click', async () => {
  const field = document.getElementById('new-key');
  const status = document.getElementById('copy-status');
  try {
    await navigator.clipboard.writeText(field.value);
    status.textContent = 'Copied.';
  } catch {
    field.select();
    status.textContent = 'Selected: press Ctrl+C (or Cmd+C) to copy.';
  }
});
`;
