import { z } from '@hono/zod-openapi';
import { isoTimestamp, pagingQuery, uuidParam } from '../schemas.js';
import { NODE_KINDS } from '../../schema/knowledge.js';
import { KNOWLEDGE_SEARCH_MODES } from './search.js';
import { UploadBodyFields } from './stored-files.js';
import type { DocumentWithFile, KnowledgeNodeRow } from './documents.js';

export const pagingParams = z.object(pagingQuery).strict();
export const documentIdParams = z.object({ id: uuidParam('id') }).strict();
/** A node key as the parsers make them: kind letter, 8 hex digits, and an occurrence when repeated. */
export const nodeKeyField = z
  .string()
  .regex(/^[spr]-[0-9a-f]{8}(-\d+)?$/, 'not a node key (e.g. p-1a2b3c4d)')
  .openapi({ example: 'p-1a2b3c4d' });
export const nodeParams = z
  .object({ id: uuidParam('id'), node_key: nodeKeyField.openapi({ param: { name: 'node_key', in: 'path' } }) })
  .strict();

export const UploadDocumentBody = z
  .object({
    ...UploadBodyFields,
    title: z.string().trim().min(1).max(300).optional().openapi({ description: 'Defaults to the file name.' }),
  })
  .strict();

export const DocumentSchema = z
  .object({
    id: z.uuid().openapi({ description: 'The document group id.' }),
    title: z.string(),
    filename: z.string(),
    content_type: z.string().openapi({ description: 'Read from the bytes, not the name.' }),
    format: z.string().openapi({ description: 'pdf, docx, html, csv, markdown or text: how it was parsed.' }),
    byte_size: z.number().int(),
    status: z.enum(['processing', 'ready', 'failed']),
    node_count: z.number().int().nullable().openapi({ description: 'Null until parsed.' }),
    embedded_count: z.number().int(),
    error: z.string().nullable(),
    run_id: z
      .uuid()
      .nullable()
      .openapi({ description: 'The ingest run (parse, then embed); its events carry the progress.' }),
    run_status: z.string().nullable(),
    created_at: isoTimestamp(),
    updated_at: isoTimestamp(),
  })
  .openapi('KnowledgeDocument');

export const toDocument = (d: DocumentWithFile): z.input<typeof DocumentSchema> => ({
  id: d.id,
  title: d.title,
  filename: d.filename,
  content_type: d.contentType,
  format: d.format,
  byte_size: d.byteSize,
  status: d.status,
  node_count: d.nodeCount,
  embedded_count: d.embeddedCount,
  error: d.error,
  run_id: d.runId,
  run_status: d.runStatus,
  created_at: d.createdAt.toISOString(),
  updated_at: d.updatedAt.toISOString(),
});

export const NodeSchema = z
  .object({
    document_group_id: z.uuid(),
    node_key: z.string(),
    kind: z.enum(NODE_KINDS),
    position: z.number().int(),
    page: z.number().int().nullable(),
    heading: z.string(),
    text: z.string(),
  })
  .openapi('KnowledgeNode');

export const toNode = (n: KnowledgeNodeRow): z.input<typeof NodeSchema> => ({
  document_group_id: n.documentGroupId,
  node_key: n.nodeKey,
  kind: n.kind,
  position: n.position,
  page: n.page,
  heading: n.heading,
  text: n.text,
});

export const KnowledgeSearchBody = z
  .object({
    query: z.string().trim().min(1).max(2000),
    mode: z.enum(KNOWLEDGE_SEARCH_MODES).default('hybrid'),
    limit: z.number().int().min(1).max(50).default(10),
    document_group_ids: z.array(z.uuid()).min(1).max(50).optional(),
  })
  .strict();

export const KnowledgeMatchSchema = z
  .object({
    document_group_id: z.uuid(),
    document_title: z.string(),
    node_key: z.string(),
    kind: z.string(),
    heading: z.string(),
    page: z.number().int().nullable(),
    text: z.string(),
    score: z.number(),
    pinned: z.boolean().openapi({ description: 'The caller pinned this node (pinned nodes come first).' }),
  })
  .openapi('KnowledgeMatch');

/** The node widget (JSON): one node's escaped-safe plain text and where it comes from. */
export const NodeWidgetSchema = z
  .object({
    document_group_id: z.uuid(),
    node_key: z.string(),
    document_title: z.string(),
    kind: z.enum(NODE_KINDS),
    heading: z.string(),
    page: z.number().int().nullable(),
    text: z
      .string()
      .openapi({ description: 'Plain text: no markup survives parsing; render it as text, never as HTML.' }),
    cite: z.object({ kind: z.literal('doc'), ref: z.string(), label: z.string() }),
  })
  .openapi('KnowledgeNodeWidget');
