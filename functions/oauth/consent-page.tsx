import type { AuthorizationParameters } from './authorization-request.js';
import { Layout, type HeaderSession } from '../web/layout.js';

export interface ConsentPageProps {
  nonce: string;
  session: HeaderSession;
  action: string;
  clientName: string;
  redirectHost: string;
  resource: string;
  /** Per workspace the member may pick: the scopes their role there lets them grant, and those it does not. */
  workspaces: {
    id: string;
    name: string;
    role: string;
    granted: { scope: string; description: string }[];
    withheld: string[];
  }[];
  parameters: AuthorizationParameters;
}

/**
 * The consent page: who is asking, where the browser goes back to, what they could do, in which
 * workspace. Scopes the member's role does not allow are listed as left out, never granted.
 */
export function ConsentPage(props: ConsentPageProps) {
  const single = props.workspaces.length === 1 ? props.workspaces[0] : undefined;
  return (
    <Layout title="Authorize application" nonce={props.nonce} session={props.session}>
      <h1>Allow {props.clientName} to access your data?</h1>
      <section class="card">
        <p>
          <strong>{props.clientName}</strong> wants to act as <strong>{props.session.email}</strong>. After you answer,
          you go back to <strong>{props.redirectHost}</strong>.
        </p>
        <p class="hint">
          Only approve applications you trust. You can revoke access later under Authorized applications.
        </p>
        <form method="post" action={props.action}>
          <input type="hidden" name="csrf_token" value={props.session.csrf} />
          {Object.entries(props.parameters).map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          {single ? (
            <input type="hidden" name="workspace_id" value={single.id} />
          ) : (
            <>
              <label for="consent-workspace">Workspace</label>
              <select id="consent-workspace" name="workspace_id" required>
                {props.workspaces.map((w) => (
                  <option value={w.id}>
                    {w.name} ({w.role})
                  </option>
                ))}
              </select>
            </>
          )}
          {props.workspaces.map((w) => (
            <div>
              <h2>{single ? `It could, in ${w.name}:` : `In ${w.name} (${w.role}), it could:`}</h2>
              <ul class="scopes">
                {w.granted.map((g) => (
                  <li>
                    {g.description} <code>{g.scope}</code>
                  </li>
                ))}
              </ul>
              {w.withheld.length > 0 ? (
                <p class="hint">
                  Not granted (your role there does not allow it): <code>{w.withheld.join(', ')}</code>
                </p>
              ) : null}
            </div>
          ))}
          <p class="hint">Access is limited to {props.resource}.</p>
          <div class="actions">
            <button type="submit" name="decision" value="approve">
              Approve
            </button>
            <button type="submit" name="decision" value="deny" class="secondary">
              Deny
            </button>
          </div>
        </form>
      </section>
    </Layout>
  );
}
