import { sql } from 'drizzle-orm';
import { check, jsonb, pgTable, real, integer, text } from 'drizzle-orm/pg-core';
import { tstz, workspaceRef } from './columns.js';
import { workspaces } from './tenancy.js';

export const CORPUS_LOAD_STATUSES = ['loading', 'complete'] as const;
export type CorpusLoadStatus = (typeof CORPUS_LOAD_STATUSES)[number];

/**
 * One row per workspace that received the generated demo corpus. It makes the load idempotent
 * (a second load finds it and does nothing) and lets a load interrupted half-way be detected:
 * a row left in `loading` means the warehouse rows of that workspace are incomplete.
 */
export const demoCorpusLoads = pgTable(
  'demo_corpus_loads',
  {
    workspaceId: workspaceRef()
      .primaryKey()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    seed: integer('seed').notNull(),
    scale: real('scale').notNull(),
    status: text('status').$type<CorpusLoadStatus>().notNull(),
    embedder: text('embedder').notNull(),
    /** Rows written per table, for the bench and for `demo seed` to report. */
    counts: jsonb('counts').$type<Record<string, number>>(),
    startedAt: tstz('started_at').notNull(),
    completedAt: tstz('completed_at'),
  },
  (t) => [check('demo_corpus_loads_status_check', sql`${t.status} in ('loading', 'complete')`)],
);
