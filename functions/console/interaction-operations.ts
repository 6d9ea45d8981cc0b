import { z } from '@hono/zod-openapi';
import { and, asc, eq, sql } from 'drizzle-orm';
import { ApiError } from '../../platform/errors.js';
import { accounts, interactions, participants, transcriptTurns } from '../../schema/index.js';
import { INTERACTION_KINDS } from '../../schema/warehouse-interactions.js';
import { defineOperation } from '../registry.js';
import { isoTimestamp } from '../schemas.js';

/**
 * One interaction as a person reads it: where an answer's quote links to. A
 * console operation (visibility `console`) so the page reads through the registry with the member's
 * own scope and role like every console page; the public API reads interactions through search.
 * Excluded interactions (the workspace's search exclusions: a personal call, a legal hold) are 404
 * here as they are absent from the filter and fuzzy lanes.
 */

const TurnSchema = z.object({
  id: z.uuid(),
  index: z.number().int(),
  speaker: z.string().nullable(),
  side: z.string(),
  started_at_seconds: z.number().nullable(),
  text: z.string(),
});

export const InteractionViewSchema = z.object({
  id: z.uuid(),
  kind: z.enum(INTERACTION_KINDS),
  title: z.string(),
  occurred_at: isoTimestamp(),
  duration_seconds: z.number().int().nullable(),
  source: z.string(),
  account: z.object({ id: z.uuid(), name: z.string() }).nullable(),
  summary: z.string().nullable(),
  /** An email's text; calls, meetings and posts have turns instead. */
  body: z.string().nullable(),
  participants: z.array(
    z.object({
      name: z.string().nullable(),
      email: z.string().nullable(),
      side: z.string(),
      role: z.string().nullable(),
    }),
  ),
  turns: z.array(TurnSchema),
});
export type InteractionView = z.infer<typeof InteractionViewSchema>;

export const getInteraction = defineOperation({
  tags: ['Console'],
  stability: 'stable',
  visibility: 'console',
  agentTool: false,
  id: 'console.interactions.get',
  method: 'get',
  path: '/console/interactions/{id}',
  summary: 'Read one interaction with its transcript (console)',
  description:
    "A call, meeting, email or post of the workspace with its participants and transcript turns; another workspace's, a missing or an excluded one is 404.",
  scopes: ['data:read'],
  minRole: 'viewer',
  params: z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) }).strict(),
  output: InteractionViewSchema,
  async handler({ services: { db }, caller }, input) {
    const workspaceId = caller.workspaceId;
    const [row] = await db
      .select({ interaction: interactions, accountName: accounts.name })
      .from(interactions)
      .leftJoin(accounts, and(eq(accounts.id, interactions.accountId), eq(accounts.workspaceId, workspaceId)))
      .where(
        and(
          eq(interactions.workspaceId, workspaceId),
          eq(interactions.id, input.id),
          sql`not exists (select 1 from excluded_interactions x where x.workspace_id = ${workspaceId} and x.interaction_id = ${interactions.id})`,
        ),
      );
    if (!row) throw new ApiError('not_found', 'No such interaction in this workspace.', { id: input.id });
    const [people, turns] = await Promise.all([
      db
        .select()
        .from(participants)
        .where(and(eq(participants.workspaceId, workspaceId), eq(participants.interactionId, input.id)))
        .orderBy(asc(participants.side), asc(participants.name)),
      db
        .select()
        .from(transcriptTurns)
        .where(and(eq(transcriptTurns.workspaceId, workspaceId), eq(transcriptTurns.interactionId, input.id)))
        .orderBy(asc(transcriptTurns.turnIndex)),
    ]);
    const i = row.interaction;
    return {
      id: i.id,
      kind: i.kind,
      title: i.title,
      occurred_at: i.occurredAt.toISOString(),
      duration_seconds: i.durationSeconds,
      source: i.source,
      account: i.accountId && row.accountName ? { id: i.accountId, name: row.accountName } : null,
      summary: i.summary,
      body: i.body,
      participants: people.map((p) => ({ name: p.name, email: p.email, side: p.side, role: p.role })),
      turns: turns.map((t) => ({
        id: t.id,
        index: t.turnIndex,
        speaker: t.speakerName,
        side: t.side,
        started_at_seconds: t.startedAtSeconds,
        text: t.text,
      })),
    };
  },
});
