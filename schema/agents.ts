import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { runs } from './runs.js';
import { workspaces } from './tenancy.js';

/**
 * A workspace's own agents (the code-defined library lives in functions/agents/library.ts and is
 * never stored). Deleting one removes the row only: runs and chats keep the agent's slug and name
 * as they were when they ran, so past runs stay readable.
 */
export const agents = pgTable(
  'agents',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    /** Stable kebab-case dispatch key, unique per workspace; never changes after creation. */
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    prompt: text('prompt').notNull(),
    /** Operation ids the agent may not call (validated against the registry when written). */
    toolBlocklist: text('tool_blocklist').array().notNull().default(sql`'{}'::text[]`),
    createdBy: uuid('created_by'),
    createdAt: createdAt(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('agents_workspace_slug_idx').on(t.workspaceId, t.slug)],
);

/**
 * A chat: a thread of turns, each user turn answered by one agent run. `last_run_id` points at the
 * newest run, whose status is the chat's; `last_activity_at` orders the list.
 */
export const chats = pgTable(
  'chats',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The agent the thread runs as: its slug (library or workspace) and, for a workspace agent, its id. */
    agentSlug: text('agent_slug').notNull(),
    agentId: uuid('agent_id'),
    /** Set when a routine fire or a subscription started the chat (their own issues add the tables). */
    routineId: uuid('routine_id'),
    subscriptionId: uuid('subscription_id'),
    createdBy: uuid('created_by'),
    lastRunId: uuid('last_run_id'),
    createdAt: createdAt(),
    lastActivityAt: tstz('last_activity_at').notNull().defaultNow(),
  },
  (t) => [
    index('chats_workspace_activity_idx').on(t.workspaceId, t.lastActivityAt),
    index('chats_workspace_routine_idx').on(t.workspaceId, t.routineId),
  ],
);

export type ChatMessageRole = 'user' | 'assistant';

/** One turn of a chat's thread: the user's input, or the answer (or what is left of it) of the run that replied. */
export const chatMessages = pgTable(
  'chat_messages',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef(),
    chatId: uuid('chat_id')
      .notNull()
      .references(() => chats.id, { onDelete: 'cascade' }),
    /** The run this turn belongs to (the user's turn and the reply share it). */
    runId: uuid('run_id'),
    seq: integer('seq').notNull(),
    role: text('role').$type<ChatMessageRole>().notNull(),
    /** The user's words, or the answer's markdown text. */
    content: text('content').notNull(),
    /** The whole answer (blocks, follow-ups, grounding) of an assistant turn. */
    answer: jsonb('answer').$type<Record<string, unknown> | null>(),
    /** An assistant turn's run outcome: complete, failed or canceled. */
    status: text('status'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('chat_messages_chat_seq_idx').on(t.chatId, t.seq), index('chat_messages_run_idx').on(t.runId)],
);

/**
 * The journal of a run's tool calls: a call's result is saved as soon as it returns, so a stage
 * that crashes before its commit and runs again reuses the result instead of calling twice.
 */
export const runToolCalls = pgTable(
  'run_tool_calls',
  {
    runId: uuid('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    /** Unique within the run: the turn and the call's position in it. */
    callKey: text('call_key').notNull(),
    workspaceId: workspaceRef(),
    tool: text('tool').notNull(),
    arguments: jsonb('arguments').$type<Record<string, unknown>>().notNull(),
    result: jsonb('result').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.callKey] })],
);

/**
 * Idempotency keys (the `Idempotency-Key` header on the creates that switch it on): the first
 * response is kept for 24 h and replayed to a retry with the same key and body.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull(),
    operationId: text('operation_id').notNull(),
    key: text('key').notNull(),
    /** SHA-256 of the request (path, query and body) the key was first used with. */
    requestHash: text('request_hash').notNull(),
    /** in_flight while the first request runs; done once its response is stored. */
    status: text('status').$type<'in_flight' | 'done'>().notNull(),
    responseStatus: integer('response_status'),
    responseBody: jsonb('response_body').$type<unknown>(),
    /** An in-flight claim older than this was abandoned (a crash): a retry may take it over. */
    lockedUntil: tstz('locked_until'),
    createdAt: createdAt(),
    expiresAt: tstz('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.userId, t.operationId, t.key] }),
    index('idempotency_keys_expires_idx').on(t.expiresAt),
  ],
);
