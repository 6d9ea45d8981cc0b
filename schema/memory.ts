import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { users, workspaces } from './tenancy.js';
import { accounts } from './warehouse-accounts.js';
import { embeddingColumn, sqlInList } from './warehouse-columns.js';

/** Where a remembered piece of evidence came from (spec: remember's `source`). */
export const MEMORY_SOURCES = ['web', 'kg', 'reference_doc', 'bigquery', 'cluster'] as const;
export type MemorySource = (typeof MEMORY_SOURCES)[number];

/**
 * The workspace's long-term memory: evidence a member, an MCP client or an agent run asked the
 * service to remember (`remember`), recalled by the agents and by `ask` beside the conversations.
 * One row per distinct text per workspace (`text_hash`): remembering the same words again stores
 * nothing and answers `persisted: false` with the first row's id. The vector is the configured
 * embedder's (null when embedding failed: the row is then recalled by its words only).
 */
export const memoryEvidence = pgTable(
  'memory_evidence',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    text: text('text').notNull(),
    /** md5 of the text as stored (trimmed): the duplicate key. */
    textHash: text('text_hash').notNull().generatedAlwaysAs(sql`md5("text")`),
    source: text('source').$type<MemorySource>().notNull(),
    /** The company as the caller named it (null when none was named). */
    companyName: text('company_name'),
    /** The account whose name the company matched, when one did (case-insensitive exact name). */
    accountId: uuid('account_id').references(() => accounts.id, { onDelete: 'set null' }),
    /** Who asked to remember it (a member; a run acts as the member who started it). */
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    /** The agent run that wrote it (a routine fire with write_memory, or an agent's tool call); null otherwise. */
    runId: uuid('run_id'),
    /** Which door it came through: rest, mcp, run, console. */
    origin: text('origin').notNull(),
    embedder: text('embedder'),
    embedding: embeddingColumn(),
    createdAt: createdAt(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('memory_evidence_text_idx').on(t.workspaceId, t.textHash),
    index('memory_evidence_workspace_created_idx').on(t.workspaceId, t.createdAt),
    index('memory_evidence_account_idx').on(t.accountId),
    // The keyword side of recall (the same english configuration the fuzzy lane searches with).
    index('memory_evidence_fts_idx').using('gin', sql`to_tsvector('english', ${t.text})`),
    check('memory_evidence_source_check', sql`${t.source} in (${sqlInList(MEMORY_SOURCES)})`),
    check('memory_evidence_text_length_check', sql`char_length(${t.text}) between 1 and 4000`),
    check(
      'memory_evidence_company_length_check',
      sql`${t.companyName} is null or char_length(${t.companyName}) <= 200`,
    ),
  ],
);
