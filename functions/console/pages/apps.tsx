import { Flash, Layout, DangerLink, type HeaderSession } from '../../web/layout.js';

export interface AppRow {
  id: string;
  client_name: string;
  redirect_hosts: string[];
  scopes: string[];
  workspace_name: string;
  resource: string;
  authorized_at: string;
}

export function AppsPage(props: {
  nonce: string;
  session: HeaderSession;
  apps: AppRow[];
  notice?: string | undefined;
  error?: string | undefined;
}) {
  return (
    <Layout title="Authorized applications" nonce={props.nonce} session={props.session} active="apps">
      <h1>Authorized applications</h1>
      <Flash error={props.error} notice={props.notice} />
      <section class="card">
        <p class="hint">
          Applications you let act for you in this workspace with OAuth. Revoking one stops its tokens at once.
        </p>
        {props.apps.length === 0 ? (
          <p>You have not authorized any application in this workspace.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Application</th>
                <th scope="col">Returns to</th>
                <th scope="col">Access</th>
                <th scope="col">Authorized</th>
                <th scope="col">
                  <span class="hint">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {props.apps.map((a) => (
                <tr>
                  <td>{a.client_name}</td>
                  <td>{a.redirect_hosts.join(', ')}</td>
                  <td>
                    {a.scopes.length} scope{a.scopes.length === 1 ? '' : 's'}
                    <div class="hint">{a.scopes.join(', ')}</div>
                    <div class="hint">for {a.resource}</div>
                  </td>
                  <td>{a.authorized_at.slice(0, 10)}</td>
                  <td>
                    <DangerLink
                      href={`/console/apps/${a.id}/revoke`}
                      label={`Revoke ${a.client_name}`}
                      text="Revoke…"
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </Layout>
  );
}
