import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { sqlInList } from './warehouse-columns.js';
import { workspaces } from './tenancy.js';

/**
 * A subscription: a prompt an agent runs when its source observes an occurrence (the event-driven
 * sibling of a routine). `next_poll_at` is when the source is next read, kept by the scheduled
 * tick, so finding the subscriptions to read is one indexed read.
 */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The kind of source (functions/subscriptions/kinds.ts); fixed at create. */
    sourceKind: text('source_kind').notNull(),
    prompt: text('prompt').notNull(),
    /** The kind's config, checked against the kind's schema on write. */
    config: jsonb('config').$type<Record<string, unknown>>().notNull(),
    /** Agent pin (slug as resolved at write time); null runs the default agent. */
    agent: text('agent'),
    /** The run config of each fire as written (defaults applied on read). */
    runConfig: jsonb('run_config').$type<Record<string, unknown>>().notNull().default({}),
    enabled: boolean('enabled').notNull(),
    /** Who created it: fires run as this member, with the scopes in `caller` (re-checked at each fire). */
    createdBy: uuid('created_by').notNull(),
    caller: jsonb('caller').$type<Record<string, unknown>>().notNull(),
    nextPollAt: tstz('next_poll_at'),
    lastPolledAt: tstz('last_polled_at'),
    /** Why the last read of the source failed; null once a read succeeds. */
    lastPollError: text('last_poll_error'),
    lastFiredAt: tstz('last_fired_at'),
    lastChatId: uuid('last_chat_id'),
    lastRunId: uuid('last_run_id'),
    createdAt: createdAt(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('subscriptions_workspace_created_idx').on(t.workspaceId, t.createdAt),
    index('subscriptions_poll_due_idx').on(t.nextPollAt).where(sql`${t.enabled}`),
  ],
);

export const SUBSCRIPTION_FIRE_STATUSES = ['pending', 'fired', 'skipped', 'failed', 'canceled'] as const;
export type SubscriptionFireStatus = (typeof SUBSCRIPTION_FIRE_STATUSES)[number];

/**
 * The fire ledger: one row per planned occurrence. The unique (subscription, event, start, lead)
 * key makes an occurrence fire at most once however often the source is read or however many
 * schedulers race; `claimed_at` is set by the one tick that hands the row to a fire run, and the
 * fire run moves it from `pending` in the same transaction that starts the agent run.
 */
export const subscriptionFires = pgTable(
  'subscription_fires',
  {
    id: uuid('id').primaryKey(),
    subscriptionId: uuid('subscription_id')
      .notNull()
      .references(() => subscriptions.id, { onDelete: 'cascade' }),
    workspaceId: workspaceRef(),
    /** The occurrence: the source's event id, its start, and the lead it fires ahead of. */
    eventId: text('event_id').notNull(),
    eventStart: tstz('event_start').notNull(),
    leadMinutes: integer('lead_minutes').notNull(),
    /** max(planned at, start − lead). */
    dueAt: tstz('due_at').notNull(),
    status: text('status').$type<SubscriptionFireStatus>().notNull(),
    /** Why a fire was skipped, canceled or failed (null while pending and once fired). */
    reason: text('reason'),
    /** The event as the source showed it (title, start, organizer, attendees; the account once fired). */
    event: jsonb('event').$type<Record<string, unknown>>().notNull(),
    claimedAt: tstz('claimed_at'),
    runId: uuid('run_id'),
    chatId: uuid('chat_id'),
    /** When the fire started its run, or was skipped, canceled or failed. */
    settledAt: tstz('settled_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('subscription_fires_occurrence_idx').on(t.subscriptionId, t.eventId, t.eventStart, t.leadMinutes),
    index('subscription_fires_subscription_due_idx').on(t.subscriptionId, t.dueAt),
    index('subscription_fires_pending_due_idx').on(t.dueAt).where(sql`${t.status} = 'pending'`),
    index('subscription_fires_workspace_fired_idx').on(t.workspaceId, t.settledAt).where(sql`${t.status} = 'fired'`),
    check('subscription_fires_status_check', sql`${t.status} in (${sqlInList(SUBSCRIPTION_FIRE_STATUSES)})`),
  ],
);
