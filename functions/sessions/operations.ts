import { z } from '@hono/zod-openapi';
import { and, count, desc, eq } from 'drizzle-orm';
import { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { sessions } from '../../schema/sessions.js';
import { defineOperation } from '../registry.js';
import { DeletedResponseSchema, isoTimestamp, pagingQuery, uuidParam } from '../schemas.js';

/**
 * Sessions (spec: `Session`, `SessionListItem`, `DeletedResponse`; paths from the public cookbook's
 * first recipes: GET/POST /sessions, GET/DELETE /sessions/{id}), inside the `data` wrapper. A
 * session is a named container with metadata a client opens to group its work; the spec's fields
 * are all present, and the cookbook's `name` and `metadata` beside them.
 */

type SessionRow = typeof sessions.$inferSelect;

const METADATA_MAX_BYTES = 16_384;

export const SessionSchema = z
  .object({
    id: z.uuid(),
    business_id: z.uuid(),
    user_id: z.uuid().openapi({ description: 'The member who created it.' }),
    name: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    created_at: isoTimestamp(),
    updated_at: isoTimestamp(),
  })
  .openapi('Session');

export const SessionListItemSchema = z
  .object({ id: z.uuid(), name: z.string().nullable(), created_at: isoTimestamp(), updated_at: isoTimestamp() })
  .openapi('SessionListItem');

const CreateSessionBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional().openapi({ description: 'A label (1–200 characters).' }),
    metadata: z
      .record(z.string(), z.unknown())
      .refine((m) => JSON.stringify(m).length <= METADATA_MAX_BYTES, `at most ${METADATA_MAX_BYTES} bytes of JSON`)
      .optional()
      .openapi({ description: `Free-form JSON object (at most ${METADATA_MAX_BYTES} bytes).` }),
  })
  .strict();

const idParams = z.object({ id: uuidParam('id') }).strict();

const toSession = (row: SessionRow) => ({
  id: row.id,
  business_id: row.workspaceId,
  user_id: row.userId,
  name: row.name,
  metadata: row.metadata,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

const common = { tags: ['Sessions'], stability: 'beta' as const, visibility: 'public' as const };
const read = { ...common, scopes: ['conversations:read'] as const, minRole: 'viewer' as const };
const write = { ...common, scopes: ['conversations:write'] as const, minRole: 'viewer' as const };

const notFound = (id: string) => new ApiError('not_found', 'No such session in this workspace.', { session_id: id });

export const createSession = defineOperation({
  ...write,
  id: 'sessions.create',
  example: { name: 'my-session', metadata: { team: 'sales' } },
  method: 'post',
  path: '/sessions',
  summary: 'Open a session (a name and metadata)',
  mcp: { tool: 'sessions', action: 'create' },
  body: CreateSessionBody,
  bodyRequired: false,
  output: z.object({ session: SessionSchema }),
  successStatus: 201,
  async handler(ctx, input) {
    const now = ctx.services.clock.now();
    const [row] = await ctx.services.db
      .insert(sessions)
      .values({
        id: newId(),
        workspaceId: ctx.caller.workspaceId,
        userId: ctx.caller.userId,
        name: input.name ?? null,
        metadata: input.metadata ?? {},
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error('insert returned nothing');
    return { session: toSession(row) };
  },
});

export const listSessions = defineOperation({
  ...read,
  id: 'sessions.list',
  method: 'get',
  path: '/sessions',
  summary: "The workspace's sessions, newest first",
  mcp: { tool: 'sessions', action: 'list' },
  query: z.object(pagingQuery).strict(),
  output: z.object({
    sessions: z.array(SessionListItemSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  async handler(ctx, input) {
    const where = eq(sessions.workspaceId, ctx.caller.workspaceId);
    const [rows, [total]] = await Promise.all([
      ctx.services.db
        .select()
        .from(sessions)
        .where(where)
        .orderBy(desc(sessions.createdAt), desc(sessions.id))
        .limit(input.limit)
        .offset(input.offset),
      ctx.services.db.select({ n: count() }).from(sessions).where(where),
    ]);
    return {
      sessions: rows.map((r) => ({
        id: r.id,
        name: r.name,
        created_at: r.createdAt.toISOString(),
        updated_at: r.updatedAt.toISOString(),
      })),
      total: Number(total?.n ?? 0),
      limit: input.limit,
      offset: input.offset,
    };
  },
});

export const getSession = defineOperation({
  ...read,
  id: 'sessions.get',
  method: 'get',
  path: '/sessions/{id}',
  summary: 'Read a session',
  mcp: { tool: 'sessions', action: 'get' },
  params: idParams,
  output: z.object({ session: SessionSchema }),
  async handler(ctx, input) {
    const [row] = await ctx.services.db
      .select()
      .from(sessions)
      .where(and(eq(sessions.workspaceId, ctx.caller.workspaceId), eq(sessions.id, input.id)));
    if (!row) throw notFound(input.id);
    return { session: toSession(row) };
  },
});

export const deleteSession = defineOperation({
  ...write,
  id: 'sessions.delete',
  method: 'delete',
  path: '/sessions/{id}',
  summary: 'Delete a session',
  description:
    'Any member with conversations:write may delete a session of the workspace. Deleting removes it: a second delete is 404.',
  mcp: { tool: 'sessions', action: 'delete' },
  params: idParams,
  output: DeletedResponseSchema,
  async handler(ctx, input) {
    const { db } = ctx.services;
    const where = and(eq(sessions.workspaceId, ctx.caller.workspaceId), eq(sessions.id, input.id));
    const deleted = await db.delete(sessions).where(where).returning({ id: sessions.id });
    if (deleted.length === 0) throw notFound(input.id);
    return { deleted: true };
  },
});

export const sessionOperations = [listSessions, createSession, getSession, deleteSession];
