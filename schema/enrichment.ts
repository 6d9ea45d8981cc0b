import { sql } from 'drizzle-orm';
import { check, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { artifacts } from './artifacts.js';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { workspaces } from './tenancy.js';
import { sqlInList } from './warehouse-columns.js';

export const ENRICH_SUBJECT_KINDS = ['company', 'person', 'topic'] as const;
export type EnrichSubjectKind = (typeof ENRICH_SUBJECT_KINDS)[number];

/**
 * The enrichment cache: the latest full brief per subject (a company's domain, a person's LinkedIn
 * URL or email, a topic's term), its document in `artifacts` (every version kept there, with its
 * grounding report), and the background refresh in flight. `refresh_run_id` is claimed with a
 * conditional update, so concurrent misses enqueue one rebuild.
 */
export const enrichmentBriefs = pgTable(
  'enrichment_briefs',
  {
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    subjectKind: text('subject_kind').$type<EnrichSubjectKind>().notNull(),
    /** Normalized: a lower-cased bare domain, a canonical LinkedIn URL or `mailto:` email, a squashed lower-cased term. */
    subjectKey: text('subject_key').notNull(),
    artifactId: uuid('artifact_id').references(() => artifacts.id, { onDelete: 'set null' }),
    brief: jsonb('brief').$type<Record<string, unknown>>(),
    capturedAt: tstz('captured_at'),
    refreshRunId: uuid('refresh_run_id'),
    refreshRequestedAt: tstz('refresh_requested_at'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.subjectKind, t.subjectKey], name: 'enrichment_briefs_pkey' }),
    check('enrichment_briefs_kind_check', sql`${t.subjectKind} in (${sqlInList(ENRICH_SUBJECT_KINDS)})`),
    check('enrichment_briefs_captured_check', sql`(${t.brief} is null) = (${t.capturedAt} is null)`),
  ],
);
