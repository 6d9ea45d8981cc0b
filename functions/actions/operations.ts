import { z } from '@hono/zod-openapi';
import { and, desc, eq, isNotNull, sql } from 'drizzle-orm';
import { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { outboxMessages } from '../../schema/artifacts.js';
import { memberships, users } from '../../schema/tenancy.js';
import { AgentRunInputSchema, headlessFireOf } from '../agents/index.js';
import { logOutput } from '../artifacts/index.js';
import { roleAtLeast } from '../identity/scopes.js';
import { defineOperation } from '../registry.js';
import { isoTimestamp, pagingQuery } from '../schemas.js';
import type { ActionName } from './catalog.js';

/**
 * Actions an agent can take (functions/actions/catalog.ts). `actions.email_member` sends a message
 * to a member of the workspace through the mail port. A routine run may take an action only if its
 * `actions_allowed` lets it: an action outside it is not taken, it becomes a proposal with
 * `action_not_allowed`, recorded on the run.
 */

/** Whether the calling run's routine or subscription config allows the action (any call outside such a run may). */
function allowedFor(runInput: Record<string, unknown> | undefined, action: ActionName): boolean {
  if (!runInput) return true;
  const parsed = AgentRunInputSchema.safeParse(runInput);
  const allowed = parsed.success ? headlessFireOf(parsed.data)?.actions_allowed : null;
  return allowed === null || allowed === undefined || allowed.includes(action);
}

const MessageSchema = z
  .object({
    id: z.uuid(),
    to: z.string(),
    subject: z.string(),
    body: z.string(),
    provider: z.enum(['outbox', 'http']).openapi({
      description: '`outbox`: kept here, not sent (no email API configured); `http`: sent by the email API.',
    }),
    provider_message_id: z.string().nullable(),
    run_id: z.uuid().nullable(),
    created_at: isoTimestamp(),
  })
  .openapi('OutboxMessage');

export const emailMember = defineOperation({
  id: 'actions.email_member',
  example: {
    to: 'dana@yourcompany.example',
    subject: 'Acme renewal risk',
    body: 'Acme asked twice about SSO on this week’s call; their renewal is in March.',
  },
  method: 'post',
  path: '/actions/email-member',
  summary: 'Email a member of the workspace (an action)',
  description:
    '`to` must be the email of a member of this workspace. Without an email API configured the message is kept in the outbox (`GET /actions/outbox`), not sent. ' +
    'From a routine run whose `actions_allowed` leaves this action out, nothing is sent: the answer is `{outcome: "proposed", reason: "action_not_allowed"}` and the run records it.',
  tags: ['Actions'],
  scopes: ['workflows:write'],
  minRole: 'editor',
  stability: 'beta',
  visibility: 'public',
  mcp: { tool: 'actions', action: 'email_member' },
  body: z
    .object({
      to: z.email().max(320).openapi({ description: "A member's email." }),
      subject: z.string().trim().min(1).max(300),
      body: z.string().trim().min(1).max(20_000),
    })
    .strict(),
  output: z.object({
    outcome: z.enum(['sent', 'proposed']),
    reason: z.string().nullable(),
    message: MessageSchema.nullable(),
  }),
  async handler(ctx, input) {
    const { db, mailer } = ctx.services;
    const [member] = await db
      .select({ id: users.id, email: users.email })
      .from(users)
      .innerJoin(
        memberships,
        and(eq(memberships.userId, users.id), eq(memberships.workspaceId, ctx.caller.workspaceId)),
      )
      .where(sql`lower(${users.email}) = lower(${input.to})`);
    if (!member) {
      throw new ApiError('invalid_argument', 'Invalid request: to: not a member of this workspace', {
        fields: [{ field: 'to', problem: 'not a member of this workspace', code: 'unknown_member' }],
      });
    }
    if (!allowedFor(ctx.run?.input, 'email_member')) {
      if (ctx.run)
        await logOutput(db, {
          workspaceId: ctx.caller.workspaceId,
          runId: ctx.run.id,
          kind: 'action',
          target: 'email_member',
          outcome: 'proposed',
          reason: 'action_not_allowed',
        });
      return { outcome: 'proposed' as const, reason: 'action_not_allowed', message: null };
    }
    const sent = await mailer.send({ to: member.email, subject: input.subject, text: input.body });
    const [row] = await db
      .insert(outboxMessages)
      .values({
        id: newId(),
        workspaceId: ctx.caller.workspaceId,
        runId: ctx.run?.id ?? null,
        toUserId: member.id,
        toEmail: member.email,
        subject: input.subject,
        body: input.body,
        provider: sent.provider,
        providerMessageId: sent.id,
      })
      .returning();
    if (ctx.run)
      await logOutput(db, {
        workspaceId: ctx.caller.workspaceId,
        runId: ctx.run.id,
        kind: 'action',
        target: 'email_member',
        outcome: 'sent',
        reason: null,
      });
    return { outcome: 'sent' as const, reason: null, message: renderMessage(row!) };
  },
});

const renderMessage = (m: typeof outboxMessages.$inferSelect) => ({
  id: m.id,
  to: m.toEmail,
  subject: m.subject,
  body: m.body,
  provider: m.provider as 'outbox' | 'http',
  provider_message_id: m.providerMessageId,
  run_id: m.runId,
  created_at: m.createdAt.toISOString(),
});

export const outbox = defineOperation({
  id: 'actions.outbox',
  method: 'get',
  path: '/actions/outbox',
  summary: 'Messages actions sent (or kept, without an email API), newest first',
  tags: ['Actions'],
  scopes: ['workflows:write'],
  minRole: 'viewer',
  stability: 'beta',
  visibility: 'public',
  mcp: { tool: 'actions', action: 'outbox' },
  query: z.object({ ...pagingQuery }).strict(),
  output: z.object({ messages: z.array(MessageSchema), limit: z.number().int(), offset: z.number().int() }),
  async handler(ctx, input) {
    const rows = await ctx.services.db
      .select()
      .from(outboxMessages)
      .where(
        and(
          eq(outboxMessages.workspaceId, ctx.caller.workspaceId),
          // A message to someone not yet a member is a team invitation whose one-time link makes its
          // holder a member: only an admin, who could invite anyone anyway, may read it.
          roleAtLeast(ctx.caller.role, 'admin') ? undefined : isNotNull(outboxMessages.toUserId),
        ),
      )
      .orderBy(desc(outboxMessages.createdAt), desc(outboxMessages.id))
      .limit(input.limit)
      .offset(input.offset);
    return { messages: rows.map(renderMessage), limit: input.limit, offset: input.offset };
  },
});

export const actionOperations = [emailMember, outbox];
