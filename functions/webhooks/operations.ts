import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { webhooks } from '../../schema/webhooks.js';
import { defineOperation } from '../registry.js';
import { DeletedResponseSchema } from '../schemas.js';
import { buildEnvelope, PING_EVENT, WEBHOOK_DELIVERY_KIND, type DeliveryRunInput } from './events.js';
import {
  countWebhooks,
  getDelivery,
  getWebhook,
  listDeliveries,
  listWebhooks,
  MAX_WEBHOOKS_PER_WORKSPACE,
  toDelivery,
  toWebhook,
} from './repository.js';
import {
  CreatedWebhookSchema,
  CreateWebhookBody,
  pagingParams,
  QueuedDeliverySchema,
  UpdateWebhookBody,
  WebhookDeliverySchema,
  WebhookSchema,
  webhookIdParams,
} from './schemas.js';
import { generateWebhookSecret } from './signing.js';
import { checkWebhookUrl } from './url-policy.js';

const common = { tags: ['Webhooks'], stability: 'beta' as const, visibility: 'public' as const };
const read = { ...common, scopes: ['webhooks:read'] as const, minRole: 'viewer' as const };
const write = { ...common, scopes: ['webhooks:write'] as const, minRole: 'editor' as const };

export const createWebhook = defineOperation({
  ...write,
  id: 'webhooks.create',
  example: { url: 'https://hooks.yourcompany.example/cip', events: ['artifact.created', 'session.completed'] },
  method: 'post',
  path: '/webhooks',
  summary: 'Register a webhook',
  description:
    'Registers an endpoint for one or more events. The signing secret is returned only in this response. ' +
    `The URL must be https (production) and must not resolve to a private, loopback, link-local or metadata address; at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks per workspace (409 conflict beyond).`,
  mcp: { tool: 'webhooks', action: 'create' },
  body: CreateWebhookBody,
  output: CreatedWebhookSchema,
  successStatus: 201,
  async handler(ctx, input) {
    const { services, caller } = ctx;
    const url = await checkWebhookUrl(services, input.url);
    if ((await countWebhooks(services.db, caller.workspaceId)) >= MAX_WEBHOOKS_PER_WORKSPACE) {
      throw new ApiError(
        'conflict',
        `A workspace can have at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks; delete one first.`,
        { limit: MAX_WEBHOOKS_PER_WORKSPACE },
      );
    }
    const secret = generateWebhookSecret();
    const now = services.clock.now();
    const [row] = await services.db
      .insert(webhooks)
      .values({
        id: newId(),
        workspaceId: caller.workspaceId,
        userId: caller.userId,
        url,
        events: input.events,
        secretSealed: await services.secretBox.seal(secret),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error('insert returned nothing');
    return { ...toWebhook(row), secret };
  },
});

export const listWebhooksOp = defineOperation({
  ...read,
  id: 'webhooks.list',
  method: 'get',
  path: '/webhooks',
  summary: 'List webhooks, newest first',
  mcp: { tool: 'webhooks', action: 'list' },
  query: pagingParams,
  output: z.object({
    webhooks: z.array(WebhookSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  async handler(ctx, input) {
    const { rows, total } = await listWebhooks(ctx.services.db, ctx.caller.workspaceId, input);
    return { webhooks: rows.map(toWebhook), total, limit: input.limit, offset: input.offset };
  },
});

export const getWebhookOp = defineOperation({
  ...read,
  id: 'webhooks.get',
  method: 'get',
  path: '/webhooks/{id}',
  summary: 'Read a webhook',
  mcp: { tool: 'webhooks', action: 'get' },
  params: webhookIdParams,
  output: WebhookSchema,
  async handler(ctx, input) {
    return toWebhook(await getWebhook(ctx.services.db, ctx.caller.workspaceId, input.id));
  },
});

export const updateWebhook = defineOperation({
  ...write,
  id: 'webhooks.update',
  example: { events: ['artifact.created'], active: true },
  method: 'patch',
  path: '/webhooks/{id}',
  summary: 'Change a webhook\u2019s url, events or active flag',
  description:
    'Re-activating a webhook the service disabled (410 Gone) clears its disabled_reason. A new url is checked like at registration.',
  mcp: { tool: 'webhooks', action: 'update' },
  params: webhookIdParams,
  body: UpdateWebhookBody,
  output: WebhookSchema,
  async handler(ctx, input) {
    const { services, caller } = ctx;
    const current = await getWebhook(services.db, caller.workspaceId, input.id);
    const url = input.url === undefined ? current.url : await checkWebhookUrl(services, input.url);
    const [row] = await services.db
      .update(webhooks)
      .set({
        url,
        ...(input.events ? { events: input.events } : {}),
        ...(input.active === undefined
          ? {}
          : { active: input.active, ...(input.active ? { disabledReason: null } : {}) }),
        updatedAt: services.clock.now(),
      })
      .where(and(eq(webhooks.workspaceId, caller.workspaceId), eq(webhooks.id, input.id)))
      .returning();
    if (!row) throw new ApiError('not_found', 'No such webhook in this workspace.', { webhook_id: input.id });
    return toWebhook(row);
  },
});

export const deleteWebhook = defineOperation({
  ...write,
  id: 'webhooks.delete',
  method: 'delete',
  path: '/webhooks/{id}',
  summary: 'Delete a webhook (pending deliveries are dropped)',
  mcp: { tool: 'webhooks', action: 'delete' },
  params: webhookIdParams,
  output: DeletedResponseSchema,
  async handler(ctx, input) {
    const deleted = await ctx.services.db
      .delete(webhooks)
      .where(and(eq(webhooks.workspaceId, ctx.caller.workspaceId), eq(webhooks.id, input.id)))
      .returning({ id: webhooks.id });
    if (deleted.length === 0)
      throw new ApiError('not_found', 'No such webhook in this workspace.', { webhook_id: input.id });
    return { deleted: true };
  },
});

export const listWebhookDeliveries = defineOperation({
  ...read,
  id: 'webhooks.deliveries',
  method: 'get',
  path: '/webhooks/{id}/deliveries',
  summary: 'Delivery attempts of a webhook, newest first',
  mcp: { tool: 'webhooks', action: 'deliveries' },
  params: webhookIdParams,
  query: pagingParams,
  output: z.object({
    deliveries: z.array(WebhookDeliverySchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  async handler(ctx, input) {
    await getWebhook(ctx.services.db, ctx.caller.workspaceId, input.id);
    const { rows, total } = await listDeliveries(ctx.services.db, ctx.caller.workspaceId, input.id, input);
    return { deliveries: rows.map(toDelivery), total, limit: input.limit, offset: input.offset };
  },
});

async function queueDelivery(
  ctx: Parameters<typeof createWebhook.handler>[0],
  webhookId: string,
  envelope: DeliveryRunInput['envelope'],
) {
  const { runId } = await ctx.services.engine.start({
    workspaceId: ctx.caller.workspaceId,
    kind: WEBHOOK_DELIVERY_KIND,
    input: { webhook_id: webhookId, envelope } satisfies DeliveryRunInput,
    createdBy: ctx.caller.userId,
  });
  return {
    webhook_id: webhookId,
    event_id: envelope.id,
    event: envelope.type,
    run_id: runId,
    status: 'queued' as const,
  };
}

export const redeliverWebhookDelivery = defineOperation({
  ...write,
  id: 'webhooks.redeliver',
  method: 'post',
  path: '/webhooks/{id}/deliveries/{delivery_id}/redeliver',
  summary: 'Send a recorded delivery\u2019s event again',
  description:
    'Queues a new delivery of the same event (same event id and payload, freshly signed). Its attempts continue the event\u2019s attempt count.',
  mcp: { tool: 'webhooks', action: 'redeliver' },
  params: webhookIdParams
    .extend({ delivery_id: z.uuid().openapi({ param: { name: 'delivery_id', in: 'path' } }) })
    .strict(),
  output: QueuedDeliverySchema,
  successStatus: 202,
  async handler(ctx, input) {
    const hook = await getWebhook(ctx.services.db, ctx.caller.workspaceId, input.id);
    const delivery = await getDelivery(ctx.services.db, ctx.caller.workspaceId, hook.id, input.delivery_id);
    const envelope = delivery.payload as unknown as DeliveryRunInput['envelope'];
    return queueDelivery(ctx, hook.id, envelope);
  },
});

export const pingWebhook = defineOperation({
  ...write,
  id: 'webhooks.ping',
  method: 'post',
  path: '/webhooks/{id}/ping',
  summary: 'Send a signed test event (webhook.ping) through the normal delivery path',
  description:
    'An addition to the spec\u2019s four event names: `webhook.ping` is sent only by this operation, to any webhook whatever its events, so an integrator can check an endpoint and its signature verification before any real event happens.',
  mcp: { tool: 'webhooks', action: 'ping' },
  params: webhookIdParams,
  output: QueuedDeliverySchema,
  successStatus: 202,
  async handler(ctx, input) {
    const hook = await getWebhook(ctx.services.db, ctx.caller.workspaceId, input.id);
    if (!hook.active)
      throw new ApiError('invalid_state', 'The webhook is inactive; activate it first (PATCH active: true).', {
        active: false,
      });
    const envelope = buildEnvelope(
      ctx.caller.workspaceId,
      PING_EVENT,
      { webhook_id: hook.id, message: 'Hello from the Customer Intelligence Platform.' },
      ctx.services.clock.now(),
    );
    return queueDelivery(ctx, hook.id, envelope);
  },
});

export const webhookOperations = [
  createWebhook,
  listWebhooksOp,
  getWebhookOp,
  updateWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  redeliverWebhookDelivery,
  pingWebhook,
];
