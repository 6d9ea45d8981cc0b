import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys, memberships, outboxMessages, teamInvitations, users } from '../../schema/index.js';
import { browse, CookieJar, decodeHtml, formFields, signInWithLink } from '../support/console-session.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * `/console/team` as a person uses it: members and roles, an invitation by email (its one-time
 * link in the outbox), accepting it from another browser, a role change, removal (their key → 401).
 * Facts are checked in the tables.
 */
let h: Harness;
let ws: SeededWorkspace;
const html = async (res: Response) => decodeHtml(await res.text());

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace();
}, 180_000);
afterAll(async () => {
  await h?.close();
});

const membershipOf = async (email: string) =>
  (
    await h.database.db
      .select({ role: memberships.role })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.workspaceId, ws.id), eq(users.email, email)))
  )[0];

describe('the team pages', () => {
  let admin: CookieJar;
  const invitee = 'new.person@invitee.test';
  let link: string;
  beforeAll(async () => {
    admin = await signInWithLink(h, ws.admin.email);
  });

  it('lists the members with their roles, each changeable by an admin', async () => {
    const page = await html(await browse(h, admin, '/console/team'));
    for (const m of [ws.admin, ws.editor, ws.viewer]) {
      expect(page).toContain(m.email);
      expect(page).toMatch(
        new RegExp(
          `<select id="role-${m.userId}" name="role" class="compact">[\\s\\S]*?<option value="${m.role}" selected="">`,
        ),
      );
    }
    expect(page).toContain(`${ws.admin.email} (you)`);
    expect(page).toContain('No open invitations.');
  });

  it('invites by email: a one-time link goes through the mail port into the outbox', async () => {
    const fields = formFields(await html(await browse(h, admin, '/console/team')), '/console/team/invitations');
    const res = await browse(h, admin, '/console/team/invitations', {
      form: { ...fields, email: invitee, role: 'editor' },
    });
    expect(res.status).toBe(303);
    const [invitation] = await h.database.db
      .select()
      .from(teamInvitations)
      .where(eq(teamInvitations.workspaceId, ws.id));
    expect(invitation).toMatchObject({ email: invitee, role: 'editor', acceptedAt: null });
    const [mail] = await h.database.db.select().from(outboxMessages).where(eq(outboxMessages.toEmail, invitee));
    expect(mail?.provider).toBe('outbox');
    link =
      /(http:\/\/platform\.test\/console\/invitations\/accept\?token=[0-9A-Za-z]+)/.exec(mail?.body ?? '')?.[1] ?? '';
    expect(link).not.toBe('');
    // Only the token's hash is stored.
    expect(invitation?.tokenHash).not.toBe(new URL(link).searchParams.get('token'));
    const page = await html(await browse(h, admin, res.headers.get('location') as string));
    expect(page).toContain('Invitation sent.');
    expect(page).toMatch(new RegExp(`<td>${invitee}</td><td>editor</td><td>${ws.admin.email}</td>`));
  });

  it('the invitation link is readable in the outbox by an admin only', async () => {
    const asAdmin = await h.request('GET', '/actions/outbox', { key: ws.admin.key });
    expect(asAdmin.status).toBe(200);
    expect(JSON.stringify(asAdmin.body)).toContain('/console/invitations/accept?token=');
    const asEditor = await h.request('GET', '/actions/outbox', { key: ws.editor.key });
    expect(asEditor.status).toBe(200);
    expect(JSON.stringify(asEditor.body)).not.toContain('/console/invitations/accept');
  });

  it('accepting the link (a button, not the GET) makes them a member with the role and signs them in; it works once', async () => {
    const browser = new CookieJar();
    const landing = await browse(h, browser, link);
    expect(landing.status).toBe(200);
    expect(await membershipOf(invitee)).toBeUndefined();
    const fields = formFields(await html(landing), '/console/invitations/accept');
    const res = await browse(h, browser, '/console/invitations/accept', { form: fields });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console/team?notice=joined');
    expect(await membershipOf(invitee)).toEqual({ role: 'editor' });
    const page = await html(await browse(h, browser, res.headers.get('location') as string));
    expect(page).toContain('Welcome: you joined the workspace.');
    expect(page).toContain(`${invitee} (you)`);
    // Editors read the team but change nothing.
    expect(page).not.toContain('action="/console/team/invitations"');
    // Another browser without the form's cookie is refused before the link is even looked at.
    expect((await browse(h, new CookieJar(), '/console/invitations/accept', { form: fields })).status).toBe(403);
    const second = new CookieJar();
    const replay = await browse(h, second, '/console/invitations/accept', {
      form: formFields(await html(await browse(h, second, link)), '/console/invitations/accept'),
    });
    expect(replay.status).toBe(400);
    expect(await html(replay)).toContain('This invitation is not valid');
  });

  it('changes a role; the last admin cannot be demoted', async () => {
    const page = await html(await browse(h, admin, '/console/team'));
    const action = `/console/team/members/${ws.editor.userId}/role`;
    const res = await browse(h, admin, action, { form: { ...formFields(page, action), role: 'viewer' } });
    expect(res.status).toBe(303);
    expect(await membershipOf(ws.editor.email)).toEqual({ role: 'viewer' });
    const self = `/console/team/members/${ws.admin.userId}/role`;
    const refused = await browse(h, admin, self, { form: { ...formFields(page, self), role: 'editor' } });
    expect(refused.status).toBe(400);
    expect(await html(refused)).toContain('A workspace needs at least one admin');
    expect(await membershipOf(ws.admin.email)).toEqual({ role: 'admin' });
  });

  it('removal is confirmed; then their key gets 401 at once and the membership is gone', async () => {
    expect((await h.request('GET', '/setup/status', { key: ws.editor.key })).status).toBe(200);
    const base = `/console/team/members/${ws.editor.userId}/remove`;
    const confirm = await browse(h, admin, base);
    expect(confirm.status).toBe(200);
    const confirmPage = await html(confirm);
    expect(confirmPage).toContain('their API keys here are revoked');
    expect(await membershipOf(ws.editor.email)).toBeDefined();
    const res = await browse(h, admin, base, { form: formFields(confirmPage, base) });
    expect(res.status).toBe(303);
    expect(await membershipOf(ws.editor.email)).toBeUndefined();
    const keys = await h.database.db.select().from(apiKeys).where(eq(apiKeys.userId, ws.editor.userId));
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) expect(k.revokedAt).not.toBeNull();
    const after = await h.request('GET', '/setup/status', { key: ws.editor.key });
    expect(after.status).toBe(401);
    expect(await html(await browse(h, admin, '/console/team'))).not.toContain(ws.editor.email);
  });

  it('the team operations are console-only: a full-admin key gets 403 not_on_public_api', async () => {
    const res = await h.request('GET', '/console/team', { key: ws.admin.key });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('not_on_public_api');
  });

  it('a viewer, whose role carries no team scope, gets an honest 403 page', async () => {
    const viewer = await signInWithLink(h, ws.viewer.email);
    const res = await browse(h, viewer, '/console/team');
    expect(res.status).toBe(403);
    expect(await html(res)).toContain('The team is managed by editors and admins.');
  });
});
