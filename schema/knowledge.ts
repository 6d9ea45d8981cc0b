import { sql } from 'drizzle-orm';
import { check, foreignKey, index, integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { users, workspaces } from './tenancy.js';
import { embeddingColumn, sqlInList } from './warehouse-columns.js';

/**
 * Workspace knowledge: files uploaded to the file store, documents parsed from them into
 * groups of nodes, the nodes' vectors, members' pins, and context entries (background the agents
 * read as context, not as evidence).
 */

/** Where an upload goes, each with its own size limit (spec, Limits: Uploads). */
export const FILE_PURPOSES = ['library', 'knowledge', 'context_attachment'] as const;
export type FilePurpose = (typeof FILE_PURPOSES)[number];

/** One file in the file store (platform/files): its bytes live there under `storage_key`. */
export const storedFiles = pgTable(
  'stored_files',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    purpose: text('purpose').$type<FilePurpose>().notNull(),
    /** The name the client sent (shown back; never used to decide the type). */
    filename: text('filename').notNull(),
    /** The media type read from the bytes (file-type, or the text sniffer), not from the name. */
    contentType: text('content_type').notNull(),
    byteSize: integer('byte_size').notNull(),
    storageKey: text('storage_key').notNull(),
    sha256: text('sha256').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    index('stored_files_workspace_idx').on(t.workspaceId, t.purpose, t.createdAt),
    check('stored_files_purpose_check', sql`${t.purpose} in (${sqlInList(FILE_PURPOSES)})`),
  ],
);

export const DOCUMENT_STATUSES = ['processing', 'ready', 'failed'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

/** A document of the knowledge bank: one uploaded file parsed into nodes by an ingest run. */
export const documentGroups = pgTable(
  'document_groups',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    fileId: uuid('file_id')
      .notNull()
      .references(() => storedFiles.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    /** pdf, docx, markdown, text, html or csv: how it was parsed. */
    format: text('format').notNull(),
    status: text('status').$type<DocumentStatus>().notNull(),
    nodeCount: integer('node_count'),
    embeddedCount: integer('embedded_count').notNull().default(0),
    /** The ingest run (parse, then embed). */
    runId: uuid('run_id'),
    error: text('error'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('document_groups_workspace_idx').on(t.workspaceId, t.createdAt),
    check('document_groups_status_check', sql`${t.status} in (${sqlInList(DOCUMENT_STATUSES)})`),
  ],
);

export const NODE_KINDS = ['section', 'paragraph', 'table_row'] as const;
export type NodeKind = (typeof NODE_KINDS)[number];

/**
 * One citable piece of a document: a section heading, a paragraph or a table row. `node_key` is
 * derived from the node's kind and text (and its occurrence), so the same document always yields
 * the same keys and a pin or a quote's source survives a re-upload of it.
 */
export const knowledgeNodes = pgTable(
  'knowledge_nodes',
  {
    workspaceId: workspaceRef(),
    documentGroupId: uuid('document_group_id')
      .notNull()
      .references(() => documentGroups.id, { onDelete: 'cascade' }),
    nodeKey: text('node_key').notNull(),
    kind: text('kind').$type<NodeKind>().notNull(),
    /** Position in the document (reading order). */
    position: integer('position').notNull(),
    /** The page (PDF) the node is on; null for formats without pages. */
    page: integer('page'),
    /** The heading the node sits under ("" at the top). */
    heading: text('heading').notNull(),
    text: text('text').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.documentGroupId, t.nodeKey], name: 'knowledge_nodes_pkey' }),
    index('knowledge_nodes_workspace_idx').on(t.workspaceId, t.documentGroupId, t.position),
    index('knowledge_nodes_text_search_idx').using('gin', sql`to_tsvector('english', ${t.text})`),
    check('knowledge_nodes_kind_check', sql`${t.kind} in (${sqlInList(NODE_KINDS)})`),
  ],
);

/** The nodes' vectors: knowledge as its own source in the semantic store, per embedder. */
export const knowledgeNodeVectors = pgTable(
  'knowledge_node_vectors',
  {
    workspaceId: workspaceRef(),
    documentGroupId: uuid('document_group_id').notNull(),
    nodeKey: text('node_key').notNull(),
    embedder: text('embedder').notNull(),
    embedding: embeddingColumn().notNull(),
  },
  (t) => [
    primaryKey({
      columns: [t.documentGroupId, t.nodeKey, t.embedder],
      name: 'knowledge_node_vectors_pkey',
    }),
    index('knowledge_node_vectors_workspace_idx').on(t.workspaceId, t.embedder),
    foreignKey({
      columns: [t.documentGroupId, t.nodeKey],
      foreignColumns: [knowledgeNodes.documentGroupId, knowledgeNodes.nodeKey],
      name: 'knowledge_node_vectors_node_fk',
    }).onDelete('cascade'),
  ],
);

/** A member's pin of one node: pinned nodes come first in that member's agent context. */
export const pins = pgTable(
  'pins',
  {
    workspaceId: workspaceRef(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    documentGroupId: uuid('document_group_id').notNull(),
    nodeKey: text('node_key').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.userId, t.documentGroupId, t.nodeKey], name: 'pins_pkey' }),
    index('pins_node_idx').on(t.documentGroupId, t.nodeKey),
    // A pin goes with its node (a deleted document takes its members' pins with it).
    foreignKey({
      columns: [t.documentGroupId, t.nodeKey],
      foreignColumns: [knowledgeNodes.documentGroupId, knowledgeNodes.nodeKey],
      name: 'pins_node_fk',
    }).onDelete('cascade'),
  ],
);

export const CONTEXT_SCOPES = ['workspace', 'member'] as const;
export type ContextScope = (typeof CONTEXT_SCOPES)[number];

/**
 * Background the agents read as context (their prompt), never as evidence: the workspace's (who we
 * are, what we sell) or one member's (my role, my accounts). `user_id` is the member's for scope
 * `member`, null for `workspace`.
 */
export const contextEntries = pgTable(
  'context_entries',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    scope: text('scope').$type<ContextScope>().notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    body: text('body').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('context_entries_workspace_idx').on(t.workspaceId, t.scope, t.userId),
    check('context_entries_scope_check', sql`${t.scope} in (${sqlInList(CONTEXT_SCOPES)})`),
    check('context_entries_member_check', sql`(${t.scope} = 'member') = (${t.userId} is not null)`),
  ],
);

/** A file attached to a context entry; its text (extracted at upload) is read with the entry. */
export const contextEntryAttachments = pgTable(
  'context_entry_attachments',
  {
    contextEntryId: uuid('context_entry_id')
      .notNull()
      .references(() => contextEntries.id, { onDelete: 'cascade' }),
    fileId: uuid('file_id')
      .notNull()
      .references(() => storedFiles.id, { onDelete: 'cascade' }),
    workspaceId: workspaceRef(),
    text: text('text').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.contextEntryId, t.fileId], name: 'context_entry_attachments_pkey' })],
);
