import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { subscriptionFires, subscriptions } from '../../schema/subscriptions.js';
import { RunHandlesSchema } from '../chat/index.js';
import { runCallerOf } from '../identity/run-caller.js';
import { defineOperation } from '../registry.js';
import { FIRES_PER_WORKSPACE_PER_HOUR, testFire } from './fire.js';
import { describeKind, SOURCE_KINDS } from './kinds.js';
import { getSubscriptionOrThrow, listFires, listSubscriptions, renderFire, renderSubscription } from './repository.js';
import {
  CreateSubscriptionBody,
  FireSchema,
  ListFiresQuery,
  ListSubscriptionsQuery,
  SubscriptionIdParams,
  SubscriptionSchema,
  UpdateSubscriptionBody,
} from './schemas.js';
import { checkSubscription } from './validate.js';

const common = { tags: ['Subscriptions'], stability: 'beta' as const, visibility: 'public' as const };
const read = { ...common, scopes: ['subscriptions:read'] as const, minRole: 'viewer' as const };
const write = { ...common, scopes: ['subscriptions:write'] as const, minRole: 'editor' as const };

const KindSchema = z
  .object({
    kind: z.enum(SOURCE_KINDS),
    name: z.string(),
    description: z.string(),
    timing: z.string(),
    fields: z.array(
      z.object({
        key: z.string(),
        type: z.string(),
        required: z.boolean(),
        description: z.string(),
        default: z.unknown().optional(),
        minimum: z.number().optional(),
        maximum: z.number().optional(),
      }),
    ),
  })
  .openapi('SubscriptionKind');

export const listSubscriptionKinds = defineOperation({
  ...read,
  id: 'subscriptions.list_kinds',
  method: 'get',
  path: '/subscriptions/kinds',
  summary: 'The source kinds a subscription can watch, each with its config fields',
  description: `Self-describing: each kind lists its config fields (key, type, required, description, default). Fires that start runs are capped at ${FIRES_PER_WORKSPACE_PER_HOUR} per workspace per rolling hour.`,
  mcp: { tool: 'agents', action: 'list_subscription_kinds', resource: 'subscription://kinds' },
  output: z.object({ kinds: z.array(KindSchema), fires_per_workspace_per_hour: z.number().int() }),
  async handler() {
    return { kinds: SOURCE_KINDS.map(describeKind), fires_per_workspace_per_hour: FIRES_PER_WORKSPACE_PER_HOUR };
  },
});

export const createSubscription = defineOperation({
  ...write,
  id: 'subscriptions.create',
  example: {
    name: 'Meeting prep',
    source_kind: 'calendar.event_upcoming',
    prompt: 'Prep me for this meeting: who is attending and what we last discussed with their company.',
    config: { connection_id: '0193a6b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b', lead_minutes: 60, require_attendees: true },
    agent: 'call-prep',
    enabled: true,
  },
  method: 'post',
  path: '/subscriptions',
  summary: 'Create a subscription: a prompt an agent runs when its source observes an event',
  description:
    'Every field is checked before anything is stored (one 400 invalid_argument naming each problem): `config` against the kind’s fields ' +
    '(for `calendar.event_upcoming`, `config.connection_id` must be a google_calendar connection of this workspace), `agent`, `run_config` keys and actions. ' +
    "Fires run as the member who created the subscription, with that credential's scopes (re-checked at every fire).",
  mcp: { tool: 'agents', action: 'create_subscription' },
  body: CreateSubscriptionBody,
  output: SubscriptionSchema,
  successStatus: 201,
  idempotent: true,
  async handler(ctx, input) {
    const { db, clock } = ctx.services;
    const checked = await checkSubscription(db, ctx.caller.workspaceId, {
      name: input.name,
      sourceKind: input.source_kind,
      prompt: input.prompt,
      config: input.config,
      agent: input.agent ?? null,
      runConfig: input.run_config ?? {},
      enabled: input.enabled ?? true,
    });
    const now = clock.now();
    const [row] = await db
      .insert(subscriptions)
      .values({
        id: newId(),
        workspaceId: ctx.caller.workspaceId,
        ...checked,
        createdBy: ctx.caller.userId,
        caller: runCallerOf(ctx.caller) as unknown as Record<string, unknown>,
        nextPollAt: checked.enabled ? now : null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return renderSubscription(row!);
  },
});

export const listSubscriptionsOperation = defineOperation({
  ...read,
  id: 'subscriptions.list',
  method: 'get',
  path: '/subscriptions',
  summary: 'List subscriptions, newest first',
  mcp: { tool: 'agents', action: 'list_subscriptions', resource: 'subscription://list' },
  query: ListSubscriptionsQuery,
  output: z.object({
    subscriptions: z.array(SubscriptionSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  async handler(ctx, input) {
    const { total, rows } = await listSubscriptions(
      ctx.services.db,
      ctx.caller.workspaceId,
      { sourceKind: input.source_kind, enabled: input.enabled },
      { limit: input.limit, offset: input.offset },
    );
    return { subscriptions: rows.map(renderSubscription), total, limit: input.limit, offset: input.offset };
  },
});

export const getSubscription = defineOperation({
  ...read,
  id: 'subscriptions.get',
  method: 'get',
  path: '/subscriptions/{id}',
  summary: "Read a subscription with its source's state and its last fire's chat and run",
  mcp: { tool: 'agents', action: 'get_subscription', resource: 'subscription://{id}' },
  params: SubscriptionIdParams,
  output: SubscriptionSchema,
  async handler(ctx, input) {
    return renderSubscription(await getSubscriptionOrThrow(ctx.services.db, ctx.caller.workspaceId, input.id));
  },
});

export const listSubscriptionFires = defineOperation({
  ...read,
  id: 'subscriptions.list_fires',
  method: 'get',
  path: '/subscriptions/{id}/fires',
  summary: 'The fire ledger of a subscription: planned occurrences and their outcomes, latest due first',
  description:
    'Statuses: `pending` (planned, waiting for its due time), `fired` (started a run: `chat_id`, `run_id`), `skipped` (`skip_reason`), ' +
    '`failed` (`error`), `canceled` (`cancel_reason`). Test fires are not in the ledger.',
  mcp: { tool: 'agents', action: 'list_subscription_fires', resource: 'subscription://{id}/fires' },
  params: SubscriptionIdParams,
  query: ListFiresQuery,
  output: z.object({
    fires: z.array(FireSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  async handler(ctx, input) {
    await getSubscriptionOrThrow(ctx.services.db, ctx.caller.workspaceId, input.id);
    const { total, rows } = await listFires(ctx.services.db, input.id, input.status, {
      limit: input.limit,
      offset: input.offset,
    });
    return { fires: rows.map(renderFire), total, limit: input.limit, offset: input.offset };
  },
});

export const updateSubscription = defineOperation({
  ...write,
  id: 'subscriptions.update',
  example: { enabled: false },
  method: 'patch',
  path: '/subscriptions/{id}',
  summary: 'Change a subscription (name, prompt, config, agent, run_config, enabled); source_kind is immutable',
  description:
    '`agent: null` clears the pin; `config` and `run_config` replace the whole object and are checked as on create. ' +
    'A changed config cancels the pending fires (`subscription_changed`) and the source is read again at the next tick. ' +
    '`source_kind` is refused (400 naming it): make a new subscription instead.',
  mcp: { tool: 'agents', action: 'update_subscription' },
  params: SubscriptionIdParams,
  body: UpdateSubscriptionBody,
  output: SubscriptionSchema,
  async handler(ctx, input) {
    if (input.source_kind !== undefined)
      throw new ApiError(
        'invalid_argument',
        'Invalid request: source_kind: is immutable (it gives the config and every pending fire their meaning); create a new subscription instead.',
        { fields: [{ field: 'source_kind', problem: 'immutable', code: 'immutable' }] },
      );
    const { db, clock } = ctx.services;
    const current = await getSubscriptionOrThrow(db, ctx.caller.workspaceId, input.id);
    const checked = await checkSubscription(db, ctx.caller.workspaceId, {
      name: input.name ?? current.name,
      sourceKind: renderSubscription(current).source_kind,
      prompt: input.prompt ?? current.prompt,
      config: input.config ?? current.config,
      agent: input.agent === undefined ? current.agent : input.agent,
      runConfig: input.run_config ?? current.runConfig,
      enabled: input.enabled ?? current.enabled,
    });
    const now = clock.now();
    const configChanged = canonical(checked.config) !== canonical(current.config);
    const readAgain = configChanged || (checked.enabled && !current.enabled);
    const row = await db.transaction(async (tx) => {
      if (configChanged)
        await tx
          .update(subscriptionFires)
          .set({ status: 'canceled', reason: 'subscription_changed', settledAt: now })
          .where(and(eq(subscriptionFires.subscriptionId, current.id), eq(subscriptionFires.status, 'pending')));
      const [updated] = await tx
        .update(subscriptions)
        .set({
          ...checked,
          nextPollAt: checked.enabled ? (readAgain ? now : current.nextPollAt) : null,
          updatedAt: now,
        })
        .where(and(eq(subscriptions.workspaceId, ctx.caller.workspaceId), eq(subscriptions.id, input.id)))
        .returning();
      return updated;
    });
    if (!row) throw new ApiError('not_found', 'No such subscription in this workspace.', { subscription_id: input.id });
    return renderSubscription(row);
  },
});

export const deleteSubscription = defineOperation({
  ...write,
  id: 'subscriptions.delete',
  method: 'delete',
  path: '/subscriptions/{id}',
  summary: 'Delete a subscription and its fire ledger (the chats it fired stay)',
  mcp: { tool: 'agents', action: 'delete_subscription' },
  params: SubscriptionIdParams,
  output: z.object({ deleted: z.literal(true), id: z.uuid() }),
  async handler(ctx, input) {
    const deleted = await ctx.services.db
      .delete(subscriptions)
      .where(and(eq(subscriptions.workspaceId, ctx.caller.workspaceId), eq(subscriptions.id, input.id)))
      .returning({ id: subscriptions.id });
    if (deleted.length === 0)
      throw new ApiError('not_found', 'No such subscription in this workspace.', { subscription_id: input.id });
    return { deleted: true as const, id: input.id };
  },
});

export const testFireSubscription = defineOperation({
  ...write,
  id: 'subscriptions.test_fire',
  method: 'post',
  path: '/subscriptions/{id}/test-fire',
  summary: 'Fire a subscription once now with a labeled synthetic event (a preview, not in the ledger)',
  description:
    "Starts the same headless chat run a fire does, as the member asking, with a synthetic event, and answers the run's handles at once (202): " +
    '`chat_id`, `run_id`, `read_url`, `stream_url`, `resume_url`. Nothing is written to the fire ledger; also works while the subscription is paused.',
  mcp: { tool: 'agents', action: 'test_fire_subscription' },
  params: SubscriptionIdParams,
  output: RunHandlesSchema,
  successStatus: 202,
  agentTool: false,
  async handler(ctx, input) {
    const sub = await getSubscriptionOrThrow(ctx.services.db, ctx.caller.workspaceId, input.id);
    return testFire(ctx.services, ctx.caller, sub);
  },
});

/** JSON with object keys sorted: a stored jsonb config and a checked one compare by content, not key order. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );

export const subscriptionOperations = [
  listSubscriptionKinds,
  listSubscriptionsOperation,
  getSubscription,
  listSubscriptionFires,
  createSubscription,
  updateSubscription,
  deleteSubscription,
  testFireSubscription,
];
