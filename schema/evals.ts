import { boolean, index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { workspaces } from './tenancy.js';

/**
 * A workspace's own evals (the built-in ones live in code). `version` is a dotted string that moves
 * whenever the grading changes (its graders or input schema); runs across versions are not pooled.
 */
export const workspaceEvals = pgTable(
  'workspace_evals',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    version: text('version').notNull(),
    inputSchema: jsonb('input_schema').$type<Record<string, unknown>>().notNull(),
    graders: jsonb('graders').$type<Record<string, unknown>[]>().notNull(),
    createdBy: uuid('created_by').notNull(),
    createdAt: createdAt(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('workspace_evals_slug_idx').on(t.workspaceId, t.slug)],
);

/**
 * What happened after an eval run (spec: feedback). `inferred` evidence is kept but never counted
 * in a published rate. `verified`: the server checked the `applied_to` target holds the
 * recommendation (true/false), or checked nothing (null).
 */
export const evalFeedback = pgTable(
  'eval_feedback',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    runId: uuid('run_id').notNull(),
    evalSlug: text('eval_slug').notNull(),
    userId: uuid('user_id').notNull(),
    evidenceKind: text('evidence_kind').notNull(),
    adopted: boolean('adopted').notNull(),
    note: text('note'),
    appliedToKind: text('applied_to_kind'),
    appliedToId: text('applied_to_id'),
    verified: boolean('verified'),
    verificationReason: text('verification_reason'),
    createdAt: createdAt(),
  },
  (t) => [
    index('eval_feedback_run_idx').on(t.workspaceId, t.runId),
    index('eval_feedback_slug_idx').on(t.workspaceId, t.evalSlug, t.createdAt),
  ],
);

export const EVAL_RUN_KIND = 'eval_run';
