import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { documentGroups, storedFiles } from '../../schema/knowledge.js';
import { defineOperation } from '../registry.js';
import { getNode, KNOWLEDGE_INGEST_KIND, listDocuments, listNodes, readDocument } from './documents.js';
import { pinId, pinnedNodes } from './pins.js';
import {
  documentIdParams,
  DocumentSchema,
  KnowledgeMatchSchema,
  KnowledgeSearchBody,
  NodeSchema,
  nodeParams,
  NodeWidgetSchema,
  pagingParams,
  toDocument,
  toNode,
  UploadDocumentBody,
} from './schemas.js';
import { searchKnowledgeNodes } from './search.js';
import { receivedFile, storeFile } from './stored-files.js';
import { UPLOAD_LIMITS } from './upload-limits.js';

const common = { tags: ['Knowledge base'], stability: 'beta' as const, visibility: 'public' as const };
const read = { ...common, scopes: ['context:read'] as const, minRole: 'viewer' as const };
const write = { ...common, scopes: ['context:write'] as const, minRole: 'editor' as const };
const MCP_TOOL = 'knowledge_base';

export const uploadDocument = defineOperation({
  ...write,
  id: 'knowledge.upload',
  example: {
    content_base64: 'IyBDdXN0b21lciBoYW5kYm9vawoKU3VwcG9ydCBob3VyczogOS0xNyBDRVQu',
    filename: 'handbook.md',
    title: 'Customer handbook',
  },
  method: 'post',
  path: '/knowledge-base',
  summary: 'Upload a document to the knowledge bank',
  description:
    `multipart/form-data with the file in \`file\` (at most ${UPLOAD_LIMITS.knowledge.maxBytes} bytes, 50 MB: exactly that is accepted, one byte more is 413 file_too_large with details.code LIMIT_FILE_SIZE). ` +
    'PDF, DOCX, HTML, CSV, Markdown or plain text, typed by its bytes (not its name). Answers 202 with the document; an ingest run parses it into nodes (sections, paragraphs, table rows, each with a stable node_key) and embeds them, with progress events on the run, until status is ready.',
  mcp: { tool: MCP_TOOL, action: 'upload' },
  upload: UPLOAD_LIMITS.knowledge,
  body: UploadDocumentBody,
  bodyRequired: false,
  output: DocumentSchema,
  successStatus: 202,
  agentTool: false,
  async handler(ctx, input) {
    const { services, caller } = ctx;
    const file = await receivedFile(ctx, input, 'knowledge');
    const { row, type } = await storeFile(services, {
      workspaceId: caller.workspaceId,
      userId: caller.userId,
      purpose: 'knowledge',
      file,
    });
    if (!type.format) {
      await services.db.delete(storedFiles).where(eq(storedFiles.id, row.id));
      await services.files.delete(row.storageKey);
      throw new ApiError(
        'invalid_argument',
        `The file in "${file.field}" is ${type.contentType}; the knowledge bank takes PDF, DOCX, HTML, CSV, Markdown or plain text.`,
        { field: file.field, content_type: type.contentType },
      );
    }
    const id = newId();
    const format = type.format;
    await services.engine.transaction(async (scope) => {
      const now = services.clock.now();
      await scope.tx.insert(documentGroups).values({
        id,
        workspaceId: caller.workspaceId,
        fileId: row.id,
        title: input.title ?? file.filename,
        format,
        status: 'processing',
        createdBy: caller.userId,
        createdAt: now,
        updatedAt: now,
      });
      const { runId } = await scope.startRun({
        workspaceId: caller.workspaceId,
        kind: KNOWLEDGE_INGEST_KIND,
        input: { document_group_id: id },
        createdBy: caller.userId,
      });
      await scope.tx.update(documentGroups).set({ runId }).where(eq(documentGroups.id, id));
    });
    return toDocument(await readDocument(services.db, caller.workspaceId, id));
  },
});

export const listDocumentsOp = defineOperation({
  ...read,
  id: 'knowledge.list',
  method: 'get',
  path: '/knowledge-base',
  summary: 'Documents of the knowledge bank, newest first',
  mcp: { tool: MCP_TOOL, action: 'list' },
  query: pagingParams,
  output: z.object({
    documents: z.array(DocumentSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  async handler(ctx, input) {
    const { rows, total } = await listDocuments(ctx.services.db, ctx.caller.workspaceId, input);
    return { documents: rows.map(toDocument), total, limit: input.limit, offset: input.offset };
  },
});

export const getDocumentOp = defineOperation({
  ...read,
  id: 'knowledge.get',
  method: 'get',
  path: '/knowledge-base/{id}',
  summary: 'Read a document: its status, node count and ingest progress',
  mcp: { tool: MCP_TOOL, action: 'get' },
  params: documentIdParams,
  output: DocumentSchema,
  async handler(ctx, input) {
    return toDocument(await readDocument(ctx.services.db, ctx.caller.workspaceId, input.id));
  },
});

export const listNodesOp = defineOperation({
  ...read,
  id: 'knowledge.nodes',
  method: 'get',
  path: '/knowledge-base/{id}/nodes',
  summary: "A document's nodes in reading order",
  mcp: { tool: MCP_TOOL, action: 'nodes' },
  params: documentIdParams,
  query: pagingParams,
  output: z.object({
    nodes: z.array(NodeSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  async handler(ctx, input) {
    await readDocument(ctx.services.db, ctx.caller.workspaceId, input.id);
    const { rows, total } = await listNodes(ctx.services.db, ctx.caller.workspaceId, input.id, input);
    return { nodes: rows.map(toNode), total, limit: input.limit, offset: input.offset };
  },
});

export const deleteDocumentOp = defineOperation({
  ...write,
  id: 'knowledge.delete',
  method: 'delete',
  path: '/knowledge-base/{id}',
  summary: 'Delete a document, its nodes, their vectors and pins, and its file',
  mcp: { tool: MCP_TOOL, action: 'delete' },
  params: documentIdParams,
  output: z.object({ deleted: z.boolean() }),
  async handler(ctx, input) {
    const { services, caller } = ctx;
    const doc = await readDocument(services.db, caller.workspaceId, input.id);
    const [file] = await services.db
      .delete(storedFiles)
      .where(and(eq(storedFiles.workspaceId, caller.workspaceId), eq(storedFiles.id, doc.fileId)))
      .returning({ key: storedFiles.storageKey });
    // The file row's cascade removed the group, its nodes, vectors and pins; then the bytes go.
    if (file) await services.files.delete(file.key);
    return { deleted: true };
  },
});

export const searchKnowledgeOp = defineOperation({
  ...read,
  id: 'knowledge.search',
  example: { query: 'support hours', mode: 'hybrid', limit: 10 },
  method: 'post',
  path: '/knowledge-base/search',
  summary: "Search the knowledge bank's nodes (hybrid, semantic or keyword)",
  description:
    'Nodes of uploaded documents by meaning, by words, or both (fused by rank). Each match names its document and node_key: quote its text verbatim in a quote block with source {document_group_id, node_key} and the grounding verifier checks it against the node. Nodes the caller pinned come first.',
  mcp: { tool: MCP_TOOL, action: 'search' },
  body: KnowledgeSearchBody,
  readOnly: true,
  output: z.object({ matches: z.array(KnowledgeMatchSchema), total: z.number().int() }),
  async handler(ctx, input) {
    const { services, caller } = ctx;
    const [matches, pinned] = await Promise.all([
      searchKnowledgeNodes(services, {
        workspaceId: caller.workspaceId,
        query: input.query,
        limit: input.limit,
        mode: input.mode,
        ...(input.document_group_ids ? { documentGroupIds: input.document_group_ids } : {}),
      }),
      pinnedNodes(services.db, caller.workspaceId, caller.userId),
    ]);
    const pinnedIds = new Set(pinned.map((p) => pinId(p.documentGroupId, p.nodeKey)));
    const withPins = matches.map((m) => ({ ...m, pinned: pinnedIds.has(pinId(m.document_group_id, m.node_key)) }));
    // Stable: pinned matches first, each side still in score order.
    withPins.sort((a, b) => Number(b.pinned) - Number(a.pinned));
    return { matches: withPins, total: withPins.length };
  },
});

export const nodeWidgetOp = defineOperation({
  ...read,
  id: 'knowledge.node_widget',
  method: 'get',
  path: '/knowledge-base/{id}/node/{node_key}/widget',
  summary: 'A small embeddable view of one node (JSON)',
  description:
    'The widget is JSON (application/json), not HTML: the node\u2019s plain text, its heading, page and document title, and a `doc` citation to show beside it. No markup survives parsing (scripts, styles and every attribute are dropped when the document is parsed), and a client must render `text` as text, never as HTML, so nothing from the document can run in the page that embeds it.',
  mcp: { tool: MCP_TOOL, action: 'node_widget' },
  params: nodeParams,
  output: NodeWidgetSchema,
  async handler(ctx, input) {
    const node = await getNode(ctx.services.db, ctx.caller.workspaceId, input.id, input.node_key);
    return {
      document_group_id: node.documentGroupId,
      node_key: node.nodeKey,
      document_title: node.title,
      kind: node.kind,
      heading: node.heading,
      page: node.page,
      text: node.text,
      cite: { kind: 'doc' as const, ref: pinId(node.documentGroupId, node.nodeKey), label: node.title },
    };
  },
});

export const documentOperations = [
  uploadDocument,
  listDocumentsOp,
  getDocumentOp,
  listNodesOp,
  searchKnowledgeOp,
  nodeWidgetOp,
  deleteDocumentOp,
];
