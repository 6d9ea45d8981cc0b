import { z } from '@hono/zod-openapi';
import { and, asc, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import { apiKeys, memberships, oauthGrants, outboxMessages, teamInvitations, users } from '../../schema/index.js';
import { ROLES } from '../../schema/tenancy.js';
import { sha256Hex } from '../../platform/crypto.js';
import type { Queryable } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { newId, randomBase62 } from '../../platform/ids.js';
import { credentialCache } from '../identity/credential-cache.js';
import { ensureMembership, removeMembership } from '../identity/members.js';
import { revokeGrantIn } from '../oauth/index.js';
import { defineOperation, type Operation } from '../registry.js';

/**
 * The team: members and their roles, invitations by email. Console operations
 * like the key pages' (visibility `console`): reading needs `team:read`, changing needs `team:write`
 * and the admin role, so an API key, even a full-admin one, can never add a member.
 */
const common = {
  tags: ['Console'],
  stability: 'stable' as const,
  visibility: 'console' as const,
  agentTool: false as const,
};
const read = { ...common, scopes: ['team:read'] as const, minRole: 'viewer' as const };
const write = { ...common, scopes: ['team:write'] as const, minRole: 'admin' as const };

export const INVITATION_TTL_DAYS = 7;
export const INVITATION_PATH = '/console/invitations/accept';
/** Open invitations per workspace: enough for a team's onboarding, not a way to mail the world. */
export const MAX_OPEN_INVITATIONS = 50;

const RoleSchema = z.enum(ROLES);

const MemberSchema = z.object({
  user_id: z.uuid(),
  email: z.string(),
  role: RoleSchema,
  you: z.boolean(),
  joined_at: z.iso.datetime(),
});

const InvitationSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  role: RoleSchema,
  invited_by: z.string().nullable(),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
});

const userParams = z.object({ user_id: z.uuid().openapi({ param: { name: 'user_id', in: 'path' } }) });
const idParams = z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) });

export const listTeam = defineOperation({
  ...read,
  id: 'console.team.list',
  method: 'get',
  path: '/console/team',
  summary: 'Members and open invitations (console)',
  description: "The workspace's members with their roles, and the invitations not yet accepted, revoked or expired.",
  output: z.object({ members: z.array(MemberSchema), invitations: z.array(InvitationSchema) }),
  async handler({ services, caller }) {
    const now = services.clock.now();
    const [members, invitations] = await Promise.all([
      services.db
        .select({ userId: users.id, email: users.email, role: memberships.role, joinedAt: memberships.createdAt })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(eq(memberships.workspaceId, caller.workspaceId))
        .orderBy(asc(users.email)),
      services.db
        .select({ invitation: teamInvitations, invitedBy: users.email })
        .from(teamInvitations)
        .leftJoin(users, eq(users.id, teamInvitations.invitedBy))
        .where(openInvitations(caller.workspaceId, now))
        .orderBy(desc(teamInvitations.createdAt)),
    ]);
    return {
      members: members.map((m) => ({
        user_id: m.userId,
        email: m.email,
        role: m.role,
        you: m.userId === caller.userId,
        joined_at: m.joinedAt.toISOString(),
      })),
      invitations: invitations.map(({ invitation: i, invitedBy }) => ({
        id: i.id,
        email: i.email,
        role: i.role,
        invited_by: invitedBy,
        created_at: i.createdAt.toISOString(),
        expires_at: i.expiresAt.toISOString(),
      })),
    };
  },
});

const openInvitations = (workspaceId: string, now: Date) =>
  and(
    eq(teamInvitations.workspaceId, workspaceId),
    isNull(teamInvitations.acceptedAt),
    isNull(teamInvitations.revokedAt),
    gt(teamInvitations.expiresAt, now),
  );

export const inviteMember = defineOperation({
  ...write,
  id: 'console.team.invite',
  example: { email: 'sam@yourcompany.example', role: 'editor' },
  method: 'post',
  path: '/console/team/invitations',
  summary: 'Invite someone by email (console)',
  description: `Mails a one-time link (valid ${INVITATION_TTL_DAYS} days) through the mail port; without an email API the message stays in the outbox. Accepting it makes the invitee a member with the role given. Inviting the same address again replaces the open invitation; a member already in the workspace is 409 conflict.`,
  body: z.object({ email: z.email().max(320), role: RoleSchema }),
  output: InvitationSchema.extend({ delivered_by: z.enum(['outbox', 'http']) }),
  successStatus: 201,
  async handler({ services, caller }, input) {
    const now = services.clock.now();
    const email = input.email.trim();
    const [member] = await services.db
      .select({ userId: memberships.userId })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.workspaceId, caller.workspaceId), sql`lower(${users.email}) = lower(${email})`));
    if (member) throw new ApiError('conflict', `${email} is already a member of this workspace.`, { email });
    const token = randomBase62(43);
    const expiresAt = new Date(now.getTime() + INVITATION_TTL_DAYS * 86_400_000);
    const id = newId();
    await services.db.transaction(async (tx) => {
      // Inviting again replaces the open invitation: only the newest link works.
      await tx
        .update(teamInvitations)
        .set({ revokedAt: now })
        .where(and(openInvitations(caller.workspaceId, now), sql`lower(${teamInvitations.email}) = lower(${email})`));
      const [{ open } = { open: 0 }] = await tx
        .select({ open: sql<number>`count(*)::int` })
        .from(teamInvitations)
        .where(openInvitations(caller.workspaceId, now));
      if (open >= MAX_OPEN_INVITATIONS)
        throw new ApiError(
          'conflict',
          `A workspace can have at most ${MAX_OPEN_INVITATIONS} open invitations; revoke some first.`,
          { limit: MAX_OPEN_INVITATIONS },
        );
      await tx.insert(teamInvitations).values({
        id,
        workspaceId: caller.workspaceId,
        email,
        role: input.role,
        tokenHash: await sha256Hex(token),
        invitedBy: caller.userId,
        expiresAt,
        createdAt: now,
      });
    });
    const link = `${services.config.publicUrl}${INVITATION_PATH}?token=${token}`;
    const subject = `${caller.email} invited you to ${caller.workspaceName}`;
    const text = [
      `${caller.email} invited you to the workspace "${caller.workspaceName}" on the Customer Intelligence Platform as ${input.role}.`,
      '',
      `Accept the invitation (the link works once, until ${expiresAt.toISOString().slice(0, 10)}):`,
      link,
    ].join('\n');
    const sent = await services.mailer.send({ to: email, subject, text });
    // The outbox records what left; a message an email API sent keeps no live link at rest.
    await services.db.insert(outboxMessages).values({
      id: newId(),
      workspaceId: caller.workspaceId,
      runId: null,
      toUserId: null,
      toEmail: email,
      subject,
      body: sent.provider === 'outbox' ? text : text.replace(link, '(link sent by email)'),
      provider: sent.provider,
      providerMessageId: sent.id,
    });
    return {
      id,
      email,
      role: input.role,
      invited_by: caller.email,
      created_at: now.toISOString(),
      expires_at: expiresAt.toISOString(),
      delivered_by: sent.provider,
    };
  },
});

export const revokeInvitation = defineOperation({
  ...write,
  id: 'console.team.revoke_invitation',
  method: 'delete',
  path: '/console/team/invitations/{id}',
  summary: 'Revoke an open invitation (console)',
  description: 'Its link stops working at once.',
  params: idParams,
  output: z.object({ id: z.uuid(), revoked: z.literal(true) }),
  async handler({ services, caller }, input) {
    const now = services.clock.now();
    const [row] = await services.db
      .update(teamInvitations)
      .set({ revokedAt: now })
      .where(and(eq(teamInvitations.id, input.id), openInvitations(caller.workspaceId, now)))
      .returning({ id: teamInvitations.id });
    if (!row) throw new ApiError('not_found', `No open invitation ${input.id}.`, { id: input.id });
    return { id: input.id, revoked: true as const };
  },
});

/** The workspace's admins other than this user: a workspace always keeps at least one. */
async function otherAdmins(db: Queryable, workspaceId: string, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(memberships)
    .where(
      and(
        eq(memberships.workspaceId, workspaceId),
        eq(memberships.role, 'admin'),
        sql`${memberships.userId} <> ${userId}`,
      ),
    );
  return row?.n ?? 0;
}

async function memberRole(db: Queryable, workspaceId: string, userId: string) {
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
  if (!row) throw new ApiError('not_found', `No member ${userId} in this workspace.`, { user_id: userId });
  return row.role;
}

export const setMemberRole = defineOperation({
  ...write,
  id: 'console.team.set_role',
  example: { role: 'admin' },
  method: 'patch',
  path: '/console/team/members/{user_id}',
  summary: "Change a member's role (console)",
  description:
    'Takes effect on the member’s next request (keys, tokens and console sessions alike). The last admin cannot be demoted (409 invalid_state).',
  params: userParams,
  body: z.object({ role: RoleSchema }),
  output: z.object({ user_id: z.uuid(), role: RoleSchema }),
  async handler({ services, caller }, input) {
    const current = await memberRole(services.db, caller.workspaceId, input.user_id);
    if (
      current === 'admin' &&
      input.role !== 'admin' &&
      (await otherAdmins(services.db, caller.workspaceId, input.user_id)) === 0
    )
      throw new ApiError('invalid_state', 'A workspace needs at least one admin; make someone else admin first.', {
        user_id: input.user_id,
      });
    await ensureMembership(services.db, caller.workspaceId, input.user_id, input.role);
    return { user_id: input.user_id, role: input.role };
  },
});

export const removeMember = defineOperation({
  ...write,
  id: 'console.team.remove',
  method: 'delete',
  path: '/console/team/members/{user_id}',
  summary: 'Remove a member (console)',
  description:
    'Their API keys in this workspace are revoked and the applications they authorized here lose access, at once (401); their runs stop at their next turn. The last admin cannot be removed (409 invalid_state).',
  params: userParams,
  output: z.object({
    user_id: z.uuid(),
    removed: z.literal(true),
    keys_revoked: z.number().int(),
    grants_revoked: z.number().int(),
  }),
  async handler({ services, caller }, input) {
    const role = await memberRole(services.db, caller.workspaceId, input.user_id);
    if (role === 'admin' && (await otherAdmins(services.db, caller.workspaceId, input.user_id)) === 0)
      throw new ApiError('invalid_state', 'A workspace needs at least one admin; make someone else admin first.', {
        user_id: input.user_id,
      });
    const now = services.clock.now();
    const { keys, grants } = await services.db.transaction(async (tx) => {
      const keys = await tx
        .update(apiKeys)
        .set({ revokedAt: now })
        .where(
          and(
            eq(apiKeys.workspaceId, caller.workspaceId),
            eq(apiKeys.userId, input.user_id),
            isNull(apiKeys.revokedAt),
          ),
        )
        .returning({ id: apiKeys.id });
      const grants = await tx
        .select({ id: oauthGrants.id })
        .from(oauthGrants)
        .where(
          and(
            eq(oauthGrants.workspaceId, caller.workspaceId),
            eq(oauthGrants.userId, input.user_id),
            isNull(oauthGrants.revokedAt),
          ),
        );
      for (const g of grants) await revokeGrantIn(tx, g.id, 'member', now);
      await removeMembership(tx, caller.workspaceId, input.user_id);
      return { keys, grants };
    });
    for (const k of keys) credentialCache.forgetCredential(k.id);
    return { user_id: input.user_id, removed: true as const, keys_revoked: keys.length, grants_revoked: grants.length };
  },
});

export const teamOperations: Operation[] = [listTeam, inviteMember, revokeInvitation, setMemberRole, removeMember];
