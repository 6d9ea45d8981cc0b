import { sql } from 'drizzle-orm';
import { check, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { workspaces } from './tenancy.js';
import { sqlInList } from './warehouse-columns.js';
import { interactions } from './warehouse-interactions.js';

/**
 * Interactions the workspace has excluded from search (a personal call, a legal hold, an internal
 * meeting recorded by mistake). The filter and fuzzy lanes drop them; the semantic mirror does not
 * (spec, "Lane data facts"), so a semantic match can still come from one.
 */
export const excludedInteractions = pgTable(
  'excluded_interactions',
  {
    /** No FK of its own: the parent's cascade removes it, and each FK costs a trigger per loaded row. */
    workspaceId: workspaceRef(),
    interactionId: uuid('interaction_id')
      .notNull()
      .references(() => interactions.id, { onDelete: 'cascade' }),
    reason: text('reason'),
    excludedBy: text('excluded_by'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.interactionId] })],
);

/** The queryable surfaces a source feeds. */
export const WAREHOUSE_SURFACES = ['interactions', 'deals', 'deal_qualification'] as const;
export type WarehouseSurface = (typeof WAREHOUSE_SURFACES)[number];

/**
 * How current each source is, per surface: the newest event it delivered, when it last delivered
 * anything, and when it last synced at all (a sync that finds nothing new moves only the last).
 * Null means never, not "long ago".
 */
export const sourceFreshness = pgTable(
  'source_freshness',
  {
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    source: text('source').notNull(),
    surface: text('surface').$type<WarehouseSurface>().notNull(),
    latestEventAt: tstz('latest_event_at'),
    latestIngestAt: tstz('latest_ingest_at'),
    lastSyncAt: tstz('last_sync_at'),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.source, t.surface] }),
    check('source_freshness_surface_check', sql`${t.surface} in (${sqlInList(WAREHOUSE_SURFACES)})`),
  ],
);
