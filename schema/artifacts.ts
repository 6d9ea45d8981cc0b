import { index, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { workspaces } from './tenancy.js';

export const ARTIFACT_STATUSES = ['published', 'proposed', 'rejected'] as const;
export type ArtifactStatus = (typeof ARTIFACT_STATUSES)[number];

/**
 * A document an agent (or a person) committed, with its versions. `status` is the document's as a
 * whole: published once any version is, else the latest version's. `current_version` is the latest
 * published version (what a reader sees), null until one is.
 */
export const artifacts = pgTable(
  'artifacts',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    status: text('status').$type<ArtifactStatus>().notNull(),
    currentVersion: integer('current_version'),
    latestVersion: integer('latest_version').notNull(),
    /** The routine whose fire wrote it first, if any (kept when the routine is deleted). */
    routineId: uuid('routine_id'),
    createdAt: createdAt(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [index('artifacts_workspace_updated_idx').on(t.workspaceId, t.updatedAt)],
);

export const artifactVersions = pgTable(
  'artifact_versions',
  {
    artifactId: uuid('artifact_id')
      .notNull()
      .references(() => artifacts.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    workspaceId: workspaceRef(),
    status: text('status').$type<ArtifactStatus>().notNull(),
    markdown: text('markdown').notNull(),
    contentBlocks: jsonb('content_blocks').$type<Record<string, unknown>[]>().notNull().default([]),
    grounding: jsonb('grounding').$type<Record<string, unknown>>().notNull(),
    /** Why the version landed proposed (unverified digits, removed blocks, a workspace agent, no run). */
    reason: text('reason'),
    runId: uuid('run_id'),
    createdBy: uuid('created_by'),
    decidedBy: uuid('decided_by'),
    decidedAt: tstz('decided_at'),
    decisionNote: text('decision_note'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.artifactId, t.version] })],
);

/**
 * What a run tried to write or do, and what came of it: documents (published, proposed, refused
 * with the gate's reason) and actions (sent, proposed as not allowed). Readable on the run.
 */
export const runOutputs = pgTable(
  'run_outputs',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef(),
    runId: uuid('run_id').notNull(),
    kind: text('kind').$type<'document' | 'action'>().notNull(),
    /** The document's id, or the action's name. */
    target: text('target'),
    version: integer('version'),
    outcome: text('outcome').$type<'published' | 'proposed' | 'refused' | 'sent'>().notNull(),
    reason: text('reason'),
    createdAt: createdAt(),
  },
  (t) => [index('run_outputs_run_idx').on(t.runId)],
);

/** Messages the service sent (the embedded default's mail port writes here instead of sending). */
export const outboxMessages = pgTable(
  'outbox_messages',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    runId: uuid('run_id'),
    toUserId: uuid('to_user_id'),
    toEmail: text('to_email').notNull(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    /** Which mail adapter took it, and its id there (the outbox's own id locally). */
    provider: text('provider').notNull(),
    providerMessageId: text('provider_message_id'),
    createdAt: createdAt(),
  },
  (t) => [index('outbox_workspace_created_idx').on(t.workspaceId, t.createdAt)],
);
