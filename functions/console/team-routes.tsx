import { Hono } from 'hono';
import { ApiError } from '../../platform/errors.js';
import { ROLES } from '../../schema/tenancy.js';
import type { AppEnv } from '../http/env.js';
import type { OperationRegistry } from '../registry.js';
import {
  clearBrowserCookie,
  formValue,
  headerFor,
  issueSignInCsrf,
  postIsTrusted,
  renderPage,
  SESSION_COOKIE,
  setBrowserCookie,
  SIGN_IN_CSRF_COOKIE,
} from '../web/browser.js';
import { acceptInvitation } from './invitations.js';
import { mayCall } from './operation-access.js';
import { consoleCall, type Ctx, message, withMember, withTrustedForm } from './page-helpers.js';
import { ConfirmPage } from './pages/confirm.js';
import { AcceptInvitationPage, type InvitationRow, type MemberRow, TeamPage } from './pages/team.js';
import {
  resolveSession,
  SESSION_TTL_SECONDS,
  startSession,
  switchWorkspace,
  type ConsoleSession,
} from '../identity/console-sessions.js';
import { INVITATION_PATH } from './team-operations.js';

const ACCEPT_ATTEMPTS = { limit: 10, windowSeconds: 60 };

/**
 * The team pages: members, roles, invitations. Reads and writes are the console's
 * team operations invoked as the member; accepting an invitation is the one page with no member yet.
 */
export function teamRoutes(registry: OperationRegistry): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const call = (c: Ctx, session: ConsoleSession, id: string, input: Record<string, unknown>) =>
    consoleCall(c, registry, session, id, input);

  app.get('/console/team', async (c) =>
    withMember(c, (session) => teamPage(c, registry, session, { notice: NOTICES[c.req.query('notice') ?? ''] })),
  );

  app.post('/console/team/invitations', async (c) =>
    withTrustedForm(c, async (session, form) => {
      const draft = { email: (formValue(form, 'email') ?? '').trim(), role: formValue(form, 'role') ?? '' };
      const result = await call(c, session, 'console.team.invite', draft);
      if (result instanceof ApiError)
        return teamPage(c, registry, session, { error: result.message, status: statusOf(result), draft });
      return c.redirect('/console/team?notice=invited', 303);
    }),
  );

  app.get('/console/team/invitations/:id/revoke', async (c) =>
    withMember(c, async (session) => {
      const listed = await call(c, session, 'console.team.list', {});
      if (listed instanceof ApiError) return refused(c, session, listed);
      const invitation = (listed as { invitations: InvitationRow[] }).invitations.find(
        (i) => i.id === c.req.param('id'),
      );
      if (!invitation) return message(c, 404, 'No such invitation', 'This invitation is not open any more.', session);
      const header = await headerFor(c, session);
      return renderPage(c, (nonce) => (
        <ConfirmPage
          nonce={nonce}
          session={header}
          active="team"
          title={`Revoke the invitation of ${invitation.email}?`}
          action={`/console/team/invitations/${invitation.id}/revoke`}
          confirmLabel="Revoke the invitation"
          cancelHref="/console/team"
        >
          <p>The link sent to {invitation.email} stops working at once. You can invite them again later.</p>
        </ConfirmPage>
      ));
    }),
  );

  app.post('/console/team/invitations/:id/revoke', async (c) =>
    withTrustedForm(c, async (session) => {
      const result = await call(c, session, 'console.team.revoke_invitation', { id: c.req.param('id') });
      if (result instanceof ApiError)
        return teamPage(c, registry, session, { error: result.message, status: statusOf(result) });
      return c.redirect('/console/team?notice=invitation_revoked', 303);
    }),
  );

  app.post('/console/team/members/:userId/role', async (c) =>
    withTrustedForm(c, async (session, form) => {
      const result = await call(c, session, 'console.team.set_role', {
        user_id: c.req.param('userId'),
        role: formValue(form, 'role') ?? '',
      });
      if (result instanceof ApiError)
        return teamPage(c, registry, session, { error: result.message, status: statusOf(result) });
      return c.redirect('/console/team?notice=role_saved', 303);
    }),
  );

  app.get('/console/team/members/:userId/remove', async (c) =>
    withMember(c, async (session) => {
      const listed = await call(c, session, 'console.team.list', {});
      if (listed instanceof ApiError) return refused(c, session, listed);
      const member = (listed as { members: MemberRow[] }).members.find((m) => m.user_id === c.req.param('userId'));
      if (!member) return message(c, 404, 'No such member', 'This person is not a member of this workspace.', session);
      const header = await headerFor(c, session);
      return renderPage(c, (nonce) => (
        <ConfirmPage
          nonce={nonce}
          session={header}
          active="team"
          title={`Remove ${member.email}${member.you ? ' (you)' : ''}?`}
          warning={member.you ? 'You are removing yourself: you lose access to this workspace at once.' : undefined}
          action={`/console/team/members/${member.user_id}/remove`}
          confirmLabel="Remove from the workspace"
          cancelHref="/console/team"
        >
          <p>
            {member.email} ({member.role}) loses access to {session.current?.workspaceName} at once: their API keys here
            are revoked and the applications they authorized here stop working (401); runs they started stop at their
            next turn. What they created stays.
          </p>
        </ConfirmPage>
      ));
    }),
  );

  app.post('/console/team/members/:userId/remove', async (c) =>
    withTrustedForm(c, async (session) => {
      const result = await call(c, session, 'console.team.remove', { user_id: c.req.param('userId') });
      if (result instanceof ApiError)
        return teamPage(c, registry, session, { error: result.message, status: statusOf(result) });
      return c.redirect('/console/team?notice=member_removed', 303);
    }),
  );

  app.get(INVITATION_PATH, async (c) => {
    const csrf = issueSignInCsrf(c);
    return renderPage(c, (nonce) => (
      <AcceptInvitationPage nonce={nonce} token={c.req.query('token') ?? ''} csrf={csrf} />
    ));
  });

  app.post(INVITATION_PATH, async (c) => {
    const services = c.get('services');
    const form = await c.req.formData();
    if (!(await postIsTrusted(c, null, form)))
      return message(c, 403, 'Request refused', 'The form expired or came from another site. Open the link again.');
    const attempt = await services.limiter.limit(`console-invitation:ip:${c.get('clientIp')}`, ACCEPT_ATTEMPTS);
    if (!attempt.success)
      return message(c, 400, 'Too many attempts', 'Too many attempts from your address. Wait a minute and try again.');
    const accepted = await acceptInvitation(services.db, formValue(form, 'token') ?? '', services.clock.now());
    if (!accepted)
      return message(
        c,
        400,
        'This invitation is not valid',
        'It was already used, revoked, has expired (invitations last 7 days) or was mistyped. Ask an admin of the workspace for a new one.',
      );
    // Signed in as the invitee, looking at the workspace they just joined.
    const { token } = await startSession(services.db, accepted.userId, services.clock.now());
    const session = await resolveSession(services.db, token, services.clock.now());
    if (session) await switchWorkspace(services.db, session, accepted.workspaceId);
    setBrowserCookie(c, SESSION_COOKIE, token, SESSION_TTL_SECONDS);
    clearBrowserCookie(c, SIGN_IN_CSRF_COOKIE, '/console');
    return c.redirect('/console/team?notice=joined', 303);
  });

  return app;
}

const NOTICES: Record<string, string> = {
  invited: 'Invitation sent. The link works once, for 7 days.',
  invitation_revoked: 'The invitation is revoked; its link no longer works.',
  role_saved: 'Role saved. It applies from the member’s next request.',
  member_removed: 'Removed. Their keys and authorized applications here stopped working.',
  joined: 'Welcome: you joined the workspace.',
};

const statusOf = (e: ApiError) => (e.status === 403 ? 403 : e.status === 404 ? 404 : 400);

const refused = (c: Ctx, session: ConsoleSession, e: ApiError) =>
  e.status === 403
    ? message(c, 403, 'Team', `The team is managed by editors and admins. ${e.message}`, session)
    : Promise.reject(e);

async function teamPage(
  c: Ctx,
  registry: OperationRegistry,
  session: ConsoleSession,
  extra: {
    notice?: string | undefined;
    error?: string;
    status?: 400 | 403 | 404;
    draft?: { email: string; role: string };
  },
): Promise<Response> {
  const listed = await consoleCall(c, registry, session, 'console.team.list', {});
  if (listed instanceof ApiError) return refused(c, session, listed);
  const { members, invitations } = listed as { members: MemberRow[]; invitations: InvitationRow[] };
  const header = await headerFor(c, session);
  return renderPage(
    c,
    (nonce) => (
      <TeamPage
        nonce={nonce}
        session={header}
        members={members}
        invitations={invitations}
        roles={ROLES}
        canManage={mayCall(registry, session, 'console.team.invite')}
        notice={extra.notice}
        error={extra.error}
        draft={extra.draft}
      />
    ),
    { status: extra.status ?? 200 },
  );
}
