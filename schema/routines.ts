import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { workspaces } from './tenancy.js';

/**
 * A routine: a prompt on a cron that fires an agent run (spec: Routine). `next_run_at` is the next
 * scheduled time, kept by the scheduler, so finding due routines is one indexed read.
 */
export const routines = pgTable(
  'routines',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    prompt: text('prompt').notNull(),
    /** Five-field cron expression, read in `timezone`. */
    cron: text('cron').notNull(),
    timezone: text('timezone').notNull(),
    /** Legacy single-agent pin (slug or id as resolved at write time); null when unpinned. */
    agent: text('agent'),
    /** The routine's config as written (defaults applied on read). */
    config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
    enabled: boolean('enabled').notNull(),
    /** Who created it: fires run as this member, with the scopes in `caller`. */
    createdBy: uuid('created_by').notNull(),
    caller: jsonb('caller').$type<Record<string, unknown>>().notNull(),
    nextRunAt: tstz('next_run_at'),
    lastFiredFor: tstz('last_fired_for'),
    lastChatId: uuid('last_chat_id'),
    lastRunId: uuid('last_run_id'),
    createdAt: createdAt(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('routines_workspace_created_idx').on(t.workspaceId, t.createdAt),
    index('routines_due_idx').on(t.nextRunAt).where(sql`${t.enabled}`),
  ],
);

/**
 * One fire of a routine for one scheduled time: the unique key that makes a scheduled time fire
 * exactly once, however many schedulers race or however often a tick repeats.
 */
export const routineFires = pgTable(
  'routine_fires',
  {
    routineId: uuid('routine_id')
      .notNull()
      .references(() => routines.id, { onDelete: 'cascade' }),
    /** The scheduled time this fire is for (run-now: the moment it was asked). */
    scheduledFor: tstz('scheduled_for').notNull(),
    workspaceId: workspaceRef(),
    trigger: text('trigger').$type<'schedule' | 'run_now'>().notNull(),
    /** Set once the fire's agent run exists. */
    runId: uuid('run_id'),
    chatId: uuid('chat_id'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.routineId, t.scheduledFor] })],
);
