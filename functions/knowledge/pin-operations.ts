import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { ApiError } from '../../platform/errors.js';
import { pins } from '../../schema/knowledge.js';
import { defineOperation } from '../registry.js';
import { isoTimestamp, uuidParam } from '../schemas.js';
import { getNode } from './documents.js';
import { pinnedNodes, type PinnedNode } from './pins.js';
import { nodeKeyField, pagingParams } from './schemas.js';

const common = { tags: ['Pins'], stability: 'beta' as const, visibility: 'public' as const };

const PinSchema = z
  .object({
    document_group_id: z.uuid(),
    node_key: z.string(),
    document_title: z.string(),
    heading: z.string(),
    page: z.number().int().nullable(),
    text: z.string(),
    pinned_at: isoTimestamp(),
  })
  .openapi('Pin');

const toPin = (p: PinnedNode): z.input<typeof PinSchema> => ({
  document_group_id: p.documentGroupId,
  node_key: p.nodeKey,
  document_title: p.documentTitle,
  heading: p.heading,
  page: p.page,
  text: p.text,
  pinned_at: p.pinnedAt.toISOString(),
});

export const listPins = defineOperation({
  ...common,
  scopes: ['pins:read'],
  minRole: 'viewer',
  id: 'pins.list',
  method: 'get',
  path: '/pins',
  summary: "The caller's pinned nodes, newest first",
  description: "Pins are a member's own: they come first in that member's agent context.",
  mcp: { tool: 'pins', action: 'list' },
  query: pagingParams,
  output: z.object({ pins: z.array(PinSchema), limit: z.number().int(), offset: z.number().int() }),
  async handler(ctx, input) {
    const rows = await pinnedNodes(ctx.services.db, ctx.caller.workspaceId, ctx.caller.userId, input);
    return { pins: rows.map(toPin), limit: input.limit, offset: input.offset };
  },
});

export const createPin = defineOperation({
  ...common,
  scopes: ['pins:write'],
  minRole: 'viewer',
  id: 'pins.create',
  example: { document_group_id: '0193a6b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b', node_key: 'p-1a2b3c4d' },
  method: 'post',
  path: '/pins',
  summary: 'Pin a knowledge node',
  description: 'Pinning a node already pinned is a no-op that answers the same pin.',
  mcp: { tool: 'pins', action: 'create' },
  body: z.object({ document_group_id: z.uuid(), node_key: nodeKeyField }).strict(),
  output: PinSchema,
  successStatus: 201,
  async handler(ctx, input) {
    const { services, caller } = ctx;
    // 404 for a node of another workspace, like any id.
    await getNode(services.db, caller.workspaceId, input.document_group_id, input.node_key);
    await services.db
      .insert(pins)
      .values({
        workspaceId: caller.workspaceId,
        userId: caller.userId,
        documentGroupId: input.document_group_id,
        nodeKey: input.node_key,
        createdAt: services.clock.now(),
      })
      .onConflictDoNothing();
    const mine = await pinnedNodes(services.db, caller.workspaceId, caller.userId, { limit: 1_000, offset: 0 });
    const pin = mine.find((p) => p.documentGroupId === input.document_group_id && p.nodeKey === input.node_key);
    if (!pin) throw new Error('the pin just written is not there');
    return toPin(pin);
  },
});

export const deletePin = defineOperation({
  ...common,
  scopes: ['pins:delete'],
  minRole: 'viewer',
  id: 'pins.delete',
  method: 'delete',
  path: '/pins/{document_group_id}/{node_key}',
  summary: 'Unpin a node',
  mcp: { tool: 'pins', action: 'delete' },
  params: z
    .object({
      document_group_id: uuidParam('document_group_id'),
      node_key: nodeKeyField.openapi({ param: { name: 'node_key', in: 'path' } }),
    })
    .strict(),
  output: z.object({ deleted: z.boolean() }),
  async handler(ctx, input) {
    const deleted = await ctx.services.db
      .delete(pins)
      .where(
        and(
          eq(pins.workspaceId, ctx.caller.workspaceId),
          eq(pins.userId, ctx.caller.userId),
          eq(pins.documentGroupId, input.document_group_id),
          eq(pins.nodeKey, input.node_key),
        ),
      )
      .returning({ key: pins.nodeKey });
    if (deleted.length === 0)
      throw new ApiError('not_found', 'You have no pin of this node.', {
        document_group_id: input.document_group_id,
        node_key: input.node_key,
      });
    return { deleted: true };
  },
});

export const pinOperations = [listPins, createPin, deletePin];
