import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { workspaces } from './tenancy.js';

export const RUN_STATUSES = ['queued', 'running', 'awaiting_input', 'complete', 'failed', 'canceled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const TERMINAL_STATUSES: readonly RunStatus[] = ['complete', 'failed', 'canceled'];

export interface RunError {
  code: string;
  message: string;
  stage: string | null;
}

/**
 * Who started a run, as stored with it: stages that call operations act as this caller, re-checked
 * against the membership and the credential at every stage (a removed member's run stops).
 */
export interface RunCaller {
  user_id: string;
  email: string;
  role: 'viewer' | 'editor' | 'admin';
  auth_method: 'api_key' | 'oauth' | 'identity_provider' | 'console';
  /** API key id, OAuth token id, or the identity provider's subject. */
  credential_id: string;
  /** The scopes the credential carried when the run started; a stage never gets more. */
  scopes: string[];
  bundle: string | null;
}

export interface PendingInput {
  type: string;
  schema: Record<string, unknown>;
  context: Record<string, unknown> | null;
}

/**
 * One asynchronous run (eval, research, chat, fuzzy search, routine fire, sync, webhook delivery),
 * stepped through named stages. `version` is the compare-and-set guard: every committed change bumps
 * it, so a duplicate or stale delivery can never commit twice. `lease_*` keeps two concurrent
 * deliveries of one stage from running its body at once; a lease that outlives its holder expires.
 */
export const runs = pgTable(
  'runs',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    status: text('status').$type<RunStatus>().notNull(),
    /** The stage to run next (or running); null once terminal. */
    stage: text('stage'),
    version: integer('version').notNull().default(0),
    /** Attempts of the current stage so far (reset when the stage changes). */
    attempt: integer('attempt').notNull().default(0),
    totalAttempts: integer('total_attempts').notNull().default(0),
    input: jsonb('input').$type<Record<string, unknown>>().notNull().default({}),
    state: jsonb('state').$type<Record<string, unknown>>().notNull().default({}),
    /** Each completed stage's output by stage name: a replayed stage finds its result here. */
    outputs: jsonb('outputs').$type<Record<string, unknown>>().notNull().default({}),
    pendingInput: jsonb('pending_input').$type<PendingInput | null>(),
    error: jsonb('error').$type<RunError | null>(),
    lastSeq: integer('last_seq').notNull().default(0),
    /** When the current stage is due; the sweeper re-publishes deliveries of runs overdue by a margin. */
    dueAt: tstz('due_at'),
    leaseToken: text('lease_token'),
    leaseUntil: tstz('lease_until'),
    createdBy: uuid('created_by'),
    caller: jsonb('caller').$type<RunCaller | null>(),
    parentRunId: uuid('parent_run_id'),
    createdAt: createdAt(),
    startedAt: tstz('started_at'),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
    completedAt: tstz('completed_at'),
  },
  (t) => [
    index('runs_workspace_kind_idx').on(t.workspaceId, t.kind, t.createdAt),
    index('runs_parent_idx').on(t.parentRunId),
    // A connection's sync runs, newest first, with one indexed read.
    index('runs_connection_idx')
      .on(t.workspaceId, sql`(${t.input}->>'connection_id')`, t.createdAt)
      .where(sql`${t.kind} = 'connection_sync'`),
    // An eval run with the same inputs (reuse: cached) is found with one indexed read.
    index('runs_eval_reuse_idx').on(t.workspaceId, sql`(${t.input}->>'reuse_key')`).where(sql`${t.kind} = 'eval_run'`),
    index('runs_due_idx').on(t.dueAt).where(sql`${t.status} in ('queued', 'running')`),
  ],
);

/** What happened in a run, in order: the source of SSE streams and replays (`seq` ascends per run). */
export const runEvents = pgTable(
  'run_events',
  {
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    workspaceId: workspaceRef(),
    type: text('type').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] })],
);

/**
 * The local transport's queue: deliveries waiting (or in flight) in the database, so a restart of
 * the embedded default resumes every unfinished run. QStash keeps its own queue in production.
 */
export const queueDeliveries = pgTable(
  'queue_deliveries',
  {
    id: uuid('id').primaryKey(),
    kind: text('kind').notNull(),
    body: jsonb('body').$type<Record<string, unknown>>().notNull(),
    deduplicationId: text('deduplication_id'),
    deliverAt: tstz('deliver_at').notNull(),
    attempt: integer('attempt').notNull().default(0),
    /** A dispatcher holds the delivery until then; after it, another may take it (crash recovery). */
    lockedUntil: tstz('locked_until'),
    lastError: text('last_error'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('queue_deliveries_dedup_idx').on(t.deduplicationId),
    index('queue_deliveries_due_idx').on(t.deliverAt),
  ],
);
