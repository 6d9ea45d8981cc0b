import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { workspaces } from './tenancy.js';
import { interactions } from './warehouse-interactions.js';

export const CONNECTION_STATUSES = ['pending', 'connected', 'disconnected'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/**
 * A workspace's connection to one of its tools (spec: Connection). Secrets are sealed with the
 * secret box and never read back out of the service; non-secret connect fields (`api_id`,
 * `account_handle`) are kept in clear. A disconnected connection keeps its row and its synced data;
 * a reconnect restores the same row. Sync cursors are saved per stream with each page.
 */
export const connections = pgTable(
  'connections',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    connectorType: text('connector_type').notNull(),
    displayName: text('display_name'),
    status: text('status').$type<ConnectionStatus>().notNull(),
    /** The member a `personal` connection belongs to (and whose syncs it runs as); null for workspace ones. */
    ownerUserId: uuid('owner_user_id'),
    createdBy: uuid('created_by').notNull(),
    /** Who syncs run as: the member who connected (re-checked at every stage). */
    caller: jsonb('caller').$type<Record<string, unknown>>().notNull(),
    credentialsSealed: text('credentials_sealed'),
    fields: jsonb('fields').$type<Record<string, string>>().notNull().default({}),
    /** Call filters, CRM recency window, comms filter (functions/connections/filters.ts). */
    config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
    /** Per stream: the provider cursor the next page starts from. */
    cursors: jsonb('cursors').$type<Record<string, string>>().notNull().default({}),
    lastSyncedAt: tstz('last_synced_at'),
    /** Set by a sync refused for credentials (401): health needs_reauth until a reconnect. */
    authFailedAt: tstz('auth_failed_at'),
    rateLimitedUntil: tstz('rate_limited_until'),
    nextSyncAt: tstz('next_sync_at'),
    disconnectedAt: tstz('disconnected_at'),
    createdAt: createdAt(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('connections_workspace_created_idx').on(t.workspaceId, t.createdAt),
    index('connections_due_idx').on(t.nextSyncAt).where(sql`${t.status} = 'connected'`),
    // One live row per single-instance source is enforced in code (the catalog knows which are).
    uniqueIndex('connections_workspace_type_name_idx').on(t.workspaceId, t.connectorType, t.displayName),
    check('connections_status_check', sql`${t.status} in ('pending', 'connected', 'disconnected')`),
  ],
);

/**
 * Which connections hold a synced interaction that several of them see: a meeting on two members'
 * calendars syncs as one interaction, so a cancellation read from one calendar (Google reports an
 * attendee's removal that way too) only releases that calendar's hold, and the meeting goes when
 * the last calendar holding it lets go.
 */
export const interactionHolders = pgTable(
  'interaction_holders',
  {
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    interactionId: uuid('interaction_id')
      .notNull()
      .references(() => interactions.id, { onDelete: 'cascade' }),
    connectionId: uuid('connection_id')
      .notNull()
      .references(() => connections.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.interactionId, t.connectionId] }),
    index('interaction_holders_connection_idx').on(t.connectionId),
  ],
);
