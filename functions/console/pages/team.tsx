import type { Role } from '../../../schema/tenancy.js';
import { when } from './connections.js';
import { DangerLink, Flash, Layout, type HeaderSession } from '../../web/layout.js';

export interface MemberRow {
  user_id: string;
  email: string;
  role: Role;
  you: boolean;
  joined_at: string;
}

export interface InvitationRow {
  id: string;
  email: string;
  role: Role;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
}

export interface TeamPageProps {
  nonce: string;
  session: HeaderSession;
  members: MemberRow[];
  invitations: InvitationRow[];
  roles: readonly Role[];
  /** Admins invite, change roles and remove; others read. */
  canManage: boolean;
  notice?: string | undefined;
  error?: string | undefined;
  draft?: { email: string; role: string } | undefined;
}

const ROLE_WORDS: Record<Role, string> = {
  viewer: 'viewer (reads)',
  editor: 'editor (reads and writes)',
  admin: 'admin (everything, the team included)',
};

/** `/console/team`: who is in the workspace, with which role, and who is invited. */
export function TeamPage(props: TeamPageProps) {
  return (
    <Layout title="Team" nonce={props.nonce} session={props.session} active="team">
      <h1>Team</h1>
      <Flash error={props.error} notice={props.notice} />
      <section class="card" aria-labelledby="members-heading">
        <h2 id="members-heading">Members</h2>
        <table>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              {props.canManage ? (
                <th scope="col">
                  <span class="hint">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {props.members.map((m) => (
              <tr>
                <td>
                  {m.email}
                  {m.you ? ' (you)' : ''}
                </td>
                <td>
                  {props.canManage ? (
                    <form method="post" action={`/console/team/members/${m.user_id}/role`} class="inline">
                      <input type="hidden" name="csrf_token" value={props.session.csrf} />
                      <label for={`role-${m.user_id}`} class="visually-hidden">
                        Role of {m.email}
                      </label>
                      <select id={`role-${m.user_id}`} name="role" class="compact">
                        {props.roles.map((r) => (
                          <option value={r} selected={r === m.role}>
                            {r}
                          </option>
                        ))}
                      </select>{' '}
                      <button type="submit" class="secondary" aria-label={`Save the role of ${m.email}`}>
                        Save
                      </button>
                    </form>
                  ) : (
                    m.role
                  )}
                </td>
                <td>{when(m.joined_at)}</td>
                {props.canManage ? (
                  <td>
                    <DangerLink
                      href={`/console/team/members/${m.user_id}/remove`}
                      label={`Remove ${m.email}`}
                      text="Remove…"
                    />
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section class="card" aria-labelledby="invitations-heading">
        <h2 id="invitations-heading">Open invitations</h2>
        {props.invitations.length === 0 ? (
          <p>No open invitations.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Invited by</th>
                <th scope="col">Expires</th>
                {props.canManage ? (
                  <th scope="col">
                    <span class="hint">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {props.invitations.map((i) => (
                <tr>
                  <td>{i.email}</td>
                  <td>{i.role}</td>
                  <td>{i.invited_by ?? 'a former member'}</td>
                  <td>{when(i.expires_at)}</td>
                  {props.canManage ? (
                    <td>
                      <DangerLink
                        href={`/console/team/invitations/${i.id}/revoke`}
                        label={`Revoke the invitation of ${i.email}`}
                        text="Revoke…"
                      />
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {props.canManage ? (
        <section class="card" aria-labelledby="invite-heading">
          <h2 id="invite-heading">Invite someone</h2>
          <p class="hint">
            They get a one-time link by email (without an email API configured, it waits in the outbox:{' '}
            <code>GET /api/platform/v1/actions/outbox</code>). It works once, for 7 days.
          </p>
          <form method="post" action="/console/team/invitations">
            <input type="hidden" name="csrf_token" value={props.session.csrf} />
            <label for="invite-email">Email</label>
            <input
              type="email"
              id="invite-email"
              name="email"
              required
              maxlength={320}
              value={props.draft?.email ?? ''}
            />
            <label for="invite-role">Role</label>
            <select id="invite-role" name="role">
              {props.roles.map((r) => (
                <option value={r} selected={r === (props.draft?.role ?? 'viewer')}>
                  {ROLE_WORDS[r]}
                </option>
              ))}
            </select>
            <div class="actions">
              <button type="submit">Send the invitation</button>
            </div>
          </form>
        </section>
      ) : null}
    </Layout>
  );
}

/** The invitation link's landing: a button, so a mail scanner fetching the link does not spend it. */
export function AcceptInvitationPage(props: { nonce: string; token: string; csrf: string }) {
  return (
    <Layout title="Join a workspace" nonce={props.nonce}>
      <h1>Join a workspace</h1>
      <section class="card">
        <p>This one-time link makes you a member of a workspace on this service and signs you in to its console.</p>
        <form method="post" action="/console/invitations/accept">
          <input type="hidden" name="csrf_token" value={props.csrf} />
          <input type="hidden" name="token" value={props.token} />
          <button type="submit">Accept the invitation</button>
        </form>
      </section>
    </Layout>
  );
}
