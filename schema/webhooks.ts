import { index, integer, jsonb, boolean, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { users, workspaces } from './tenancy.js';

/** A registered endpoint. The signing secret is stored encrypted (it must be usable to sign). */
export const webhooks = pgTable(
  'webhooks',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: text('events').array().notNull(),
    active: boolean('active').notNull().default(true),
    /** AES-GCM sealed `whsec_...` secret. */
    secretSealed: text('secret_sealed').notNull(),
    /** Why the service turned the webhook off (e.g. the endpoint answered 410 Gone). */
    disabledReason: text('disabled_reason'),
    createdAt: createdAt(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [index('webhooks_workspace_idx').on(t.workspaceId)],
);

/** Every delivery attempt of an event to a webhook (spec, WebhookDelivery). */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    /** The event's id, the same on every attempt and redelivery (the `webhook-id` header). */
    eventId: text('event_id').notNull(),
    event: text('event').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    statusCode: integer('status_code'),
    attempt: integer('attempt').notNull(),
    error: text('error'),
    /** The delivery run that made this attempt. */
    runId: uuid('run_id'),
    durationMs: integer('duration_ms'),
    createdAt: createdAt(),
  },
  (t) => [index('webhook_deliveries_webhook_idx').on(t.webhookId, t.createdAt)],
);
