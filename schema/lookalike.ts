import { sql } from 'drizzle-orm';
import { check, integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { tstz, workspaceRef } from './columns.js';
import { workspaces } from './tenancy.js';
import { embeddingColumn, sqlInList } from './warehouse-columns.js';

export const CENTROID_ENTITY_TYPES = ['company', 'deal'] as const;
export type CentroidEntityType = (typeof CENTROID_ENTITY_TYPES)[number];

/**
 * Lookalikes by conversation: one centroid per company (account) and per deal, the mean of the
 * vectors of the external utterances said in its interactions, per embedder (vectors of different
 * embedders are never compared). Materialized by the `lookalike.materialize` pipeline, which
 * replaces a workspace's rows for an embedder in one transaction, so a reader never sees half a
 * materialization.
 */
export const entityCentroids = pgTable(
  'entity_centroids',
  {
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    embedder: text('embedder').notNull(),
    entityType: text('entity_type').$type<CentroidEntityType>().notNull(),
    /** The account's or the deal's id (no FK: the next materialization drops a deleted entity's row). */
    entityId: uuid('entity_id').notNull(),
    /** The centroid: the mean of its members' vectors. */
    embedding: embeddingColumn().notNull(),
    /** How many external utterances the centroid averages. */
    memberCount: integer('member_count').notNull(),
    computedAt: tstz('computed_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.embedder, t.entityType, t.entityId], name: 'entity_centroids_pkey' }),
    check('entity_centroids_type_check', sql`${t.entityType} in (${sqlInList(CENTROID_ENTITY_TYPES)})`),
    check('entity_centroids_members_check', sql`${t.memberCount} > 0`),
  ],
);

/**
 * The last materialization per workspace and embedder, and the size of the utterance store it saw:
 * the scheduled tick starts a new one when the store's count moved (a sync landed) or the last one
 * is a day old.
 */
export const centroidMaterializations = pgTable(
  'centroid_materializations',
  {
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    embedder: text('embedder').notNull(),
    /** `utterance_store_counts.utterances` when it ran. */
    storeUtterances: integer('store_utterances').notNull(),
    centroids: integer('centroids').notNull(),
    computedAt: tstz('computed_at').notNull(),
    /** The run materializing now, if any (cleared when it commits). */
    runId: uuid('run_id'),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.embedder], name: 'centroid_materializations_pkey' })],
);
