import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { workspaces } from './tenancy.js';
import { embeddingColumn, SIDES, sqlInList, type Side } from './warehouse-columns.js';
import { interactions, transcriptTurns } from './warehouse-interactions.js';

/**
 * One sentence-sized piece of a turn. External-side utterances are what the semantic lane finds
 * (their texts' vectors live in `utterance_vectors`); internal ones are kept (for context and
 * hydration) without one. `embedder` names the model that produced the vector: a query is only
 * ever compared with vectors of its own embedder.
 */
export const utterances = pgTable(
  'utterances',
  {
    id: uuid('id').primaryKey(),
    /** No FK of its own: the parent's cascade removes it, and each FK costs a trigger per loaded row. */
    workspaceId: workspaceRef(),
    interactionId: uuid('interaction_id')
      .notNull()
      .references(() => interactions.id, { onDelete: 'cascade' }),
    turnId: uuid('turn_id').references(() => transcriptTurns.id, { onDelete: 'set null' }),
    /** Position within the interaction (not within the turn), so ordering a transcript is one sort. */
    utteranceIndex: integer('utterance_index').notNull(),
    side: text('side').$type<Side>().notNull(),
    speakerName: text('speaker_name'),
    text: text('text').notNull(),
    /** The key of this text's vector in `utterance_vectors`: one vector per distinct text. */
    textHash: text('text_hash').notNull().generatedAlwaysAs(sql`md5("text")`),
    /** The embedder whose vector of this text is in `utterance_vectors`; null for the internal side. */
    embedder: text('embedder'),
    /** Copied from the interaction: the semantic lane's coverage needs an event time per match. */
    occurredAt: tstz('occurred_at').notNull(),
  },
  (t) => [
    uniqueIndex('utterances_interaction_idx').on(t.interactionId, t.utteranceIndex),
    index('utterances_turn_idx').on(t.turnId),
    index('utterances_workspace_embedder_idx').on(t.workspaceId, t.embedder),
    index('utterances_workspace_occurred_idx').on(t.workspaceId, t.occurredAt),
    // The semantic store as the lane reads it: its newest and oldest event (one probe each) and the
    // gap baseline's events per week answer from this index alone (an index-only scan once
    // vacuumed). The count comes from utterance_store_counts: even index-only, counting 47k
    // entries cost 8 ms a search at 10x.
    index('utterances_external_vectors_idx')
      .on(t.workspaceId, t.embedder, t.occurredAt)
      .where(sql`${t.side} = 'external' and ${t.embedder} is not null`),
    // From a text's vector back to every external utterance that says it (the lane's expansion).
    index('utterances_external_text_idx')
      .on(t.workspaceId, t.embedder, t.textHash)
      .where(sql`${t.side} = 'external' and ${t.embedder} is not null`),
    check('utterances_side_check', sql`${t.side} in (${sqlInList(SIDES)})`),
  ],
);

/**
 * The semantic store: one vector per distinct external text, per workspace and embedder. A third
 * of the customer's sentences repeat another word for word ("That makes sense."), and identical
 * vectors both waste the index and thin an HNSW graph (its neighbour lists fill with copies), so
 * a text is embedded and indexed once; its utterances find it by `text_hash` and carry `embedder`
 * (non-null: their text is in the store under that embedder).
 * No table of its own holds the text: the vector is only ever reached from an utterance or
 * expanded back to them. A vector whose last utterance is deleted is pruned with it
 * (`pruneOrphanVectors`).
 */
export const utteranceVectors = pgTable(
  'utterance_vectors',
  {
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    embedder: text('embedder').notNull(),
    /** md5 of the text, as `utterances.text_hash` computes it. */
    textHash: text('text_hash').notNull(),
    embedding: embeddingColumn().notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.embedder, t.textHash], name: 'utterance_vectors_pkey' })],
);

/**
 * How many external utterances each embedder's store can answer with, per workspace: the semantic
 * lane reports it with every answer (detail.coverage.total_rows), and counting 47k index entries
 * per search cost 8 ms at 10x (80 ms at 100x). Kept by statement-level triggers on `utterances`
 * (migration 0014), so every writer (COPY, inserts, cascading deletes) keeps it exact within its
 * own transaction, never by application code that a new writer could forget.
 */
export const utteranceStoreCounts = pgTable(
  'utterance_store_counts',
  {
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    embedder: text('embedder').notNull(),
    utterances: integer('utterances').notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.embedder], name: 'utterance_store_counts_pkey' })],
);

export interface ThemeExample {
  text: string;
  utteranceId: string;
  interactionId: string;
}

/**
 * The theme index: recurring customer-side topics, each with a centroid-like embedding. The
 * semantic lane falls back to it when the utterance store cannot answer.
 */
export const themes = pgTable(
  'themes',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    label: text('label').notNull(),
    summary: text('summary').notNull(),
    embedding: embeddingColumn(),
    embedder: text('embedder'),
    /** Number of external utterances assigned to the theme. */
    memberCount: integer('member_count').notNull(),
    /** Number of distinct interactions those utterances come from. */
    interactionCount: integer('interaction_count').notNull(),
    examples: jsonb('examples').$type<ThemeExample[]>().notNull().default([]),
    firstSeenAt: tstz('first_seen_at'),
    lastSeenAt: tstz('last_seen_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('themes_workspace_label_idx').on(t.workspaceId, t.label),
    check('themes_embedder_check', sql`(${t.embedding} is null) = (${t.embedder} is null)`),
  ],
);
