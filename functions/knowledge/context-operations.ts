import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { contextEntries, contextEntryAttachments, CONTEXT_SCOPES, storedFiles } from '../../schema/knowledge.js';
import { roleAtLeast } from '../identity/scopes.js';
import { defineOperation, type OperationContext } from '../registry.js';
import { isoTimestamp, uuidParam } from '../schemas.js';
import { getContextEntry, listContextEntries, type ContextEntryWithAttachments } from './context-entries.js';
import { IngestLimitError } from './ingest-limits.js';
import { parseDocument } from './parsers/index.js';
import { receivedFile, storedBytes, storeFile, UploadBodyFields } from './stored-files.js';
import { UPLOAD_LIMITS } from './upload-limits.js';

const common = { tags: ['Context'], stability: 'beta' as const, visibility: 'public' as const };
const read = { ...common, scopes: ['context:read'] as const, minRole: 'viewer' as const };
const write = { ...common, scopes: ['context:write'] as const, minRole: 'viewer' as const };
/** The text of an attachment kept for the agents' context (the file itself stays in the store). */
const MAX_ATTACHMENT_TEXT = 20_000;

const ContextEntrySchema = z
  .object({
    id: z.uuid(),
    scope: z
      .enum(CONTEXT_SCOPES)
      .openapi({ description: "workspace: everyone's background; member: the caller's own." }),
    title: z.string(),
    body: z.string(),
    attachments: z.array(
      z.object({ file_id: z.uuid(), filename: z.string(), byte_size: z.number().int(), text_chars: z.number().int() }),
    ),
    created_at: isoTimestamp(),
    updated_at: isoTimestamp(),
  })
  .openapi('ContextEntry');

const toEntry = (e: ContextEntryWithAttachments): z.input<typeof ContextEntrySchema> => ({
  id: e.id,
  scope: e.scope,
  title: e.title,
  body: e.body,
  attachments: e.attachments.map((a) => ({
    file_id: a.fileId,
    filename: a.filename,
    byte_size: a.byteSize,
    text_chars: a.text.length,
  })),
  created_at: e.createdAt.toISOString(),
  updated_at: e.updatedAt.toISOString(),
});

const entryParams = z.object({ id: uuidParam('id') }).strict();

/** A workspace entry speaks for everyone: editors and admins write those; anyone writes their own. */
function requireScopeRole(ctx: OperationContext, scope: (typeof CONTEXT_SCOPES)[number]): void {
  if (scope === 'workspace' && !roleAtLeast(ctx.caller.role, 'editor'))
    throw new ApiError('insufficient_role', 'Workspace context entries need role editor or above.', {
      required_role: 'editor',
      role: ctx.caller.role,
    });
}

export const createContextEntry = defineOperation({
  ...write,
  id: 'context.create',
  example: {
    scope: 'workspace',
    title: 'Who we are',
    body: 'We sell onboarding software to logistics companies in Europe.',
  },
  method: 'post',
  path: '/context-entries',
  summary: 'Write background the agents read as context',
  description:
    'Workspace background (scope workspace, editors and admins) or the caller\u2019s own (scope member). Agents read entries in their prompt as context, never as citable evidence.',
  mcp: { tool: 'context', action: 'create' },
  body: z
    .object({
      scope: z.enum(CONTEXT_SCOPES).default('member'),
      title: z.string().trim().min(1).max(200),
      body: z.string().trim().min(1).max(8_000),
    })
    .strict(),
  output: ContextEntrySchema,
  successStatus: 201,
  agentTool: false,
  async handler(ctx, input) {
    requireScopeRole(ctx, input.scope);
    const id = newId();
    const now = ctx.services.clock.now();
    await ctx.services.db.insert(contextEntries).values({
      id,
      workspaceId: ctx.caller.workspaceId,
      scope: input.scope,
      userId: input.scope === 'member' ? ctx.caller.userId : null,
      title: input.title,
      body: input.body,
      createdBy: ctx.caller.userId,
      createdAt: now,
      updatedAt: now,
    });
    return toEntry(await getContextEntry(ctx.services.db, ctx.caller.workspaceId, ctx.caller.userId, id));
  },
});

export const listContextEntriesOp = defineOperation({
  ...read,
  id: 'context.list',
  method: 'get',
  path: '/context-entries',
  summary: "The workspace's context entries and the caller's own",
  mcp: { tool: 'context', action: 'list' },
  output: z.object({ entries: z.array(ContextEntrySchema) }),
  async handler(ctx) {
    const rows = await listContextEntries(ctx.services.db, ctx.caller.workspaceId, ctx.caller.userId);
    return { entries: rows.map(toEntry) };
  },
});

export const getContextEntryOp = defineOperation({
  ...read,
  id: 'context.get',
  method: 'get',
  path: '/context-entries/{id}',
  summary: 'Read a context entry',
  mcp: { tool: 'context', action: 'get' },
  params: entryParams,
  output: ContextEntrySchema,
  async handler(ctx, input) {
    return toEntry(await getContextEntry(ctx.services.db, ctx.caller.workspaceId, ctx.caller.userId, input.id));
  },
});

export const deleteContextEntry = defineOperation({
  ...write,
  // Changing what an agent reads for others, or removing it, is an editor's (a member's own entry too).
  minRole: 'editor',
  id: 'context.delete',
  method: 'delete',
  path: '/context-entries/{id}',
  summary: 'Delete a context entry and its attachments',
  mcp: { tool: 'context', action: 'delete' },
  params: entryParams,
  output: z.object({ deleted: z.boolean() }),
  agentTool: false,
  async handler(ctx, input) {
    const { services, caller } = ctx;
    const entry = await getContextEntry(services.db, caller.workspaceId, caller.userId, input.id);
    requireScopeRole(ctx, entry.scope);
    const fileIds = entry.attachments.map((a) => a.fileId);
    await services.db
      .delete(contextEntries)
      .where(and(eq(contextEntries.workspaceId, caller.workspaceId), eq(contextEntries.id, input.id)));
    for (const fileId of fileIds) {
      const [file] = await services.db
        .delete(storedFiles)
        .where(and(eq(storedFiles.workspaceId, caller.workspaceId), eq(storedFiles.id, fileId)))
        .returning({ key: storedFiles.storageKey });
      if (file) await services.files.delete(file.key);
    }
    return { deleted: true };
  },
});

export const attachToContextEntry = defineOperation({
  ...write,
  minRole: 'editor',
  id: 'context.attach',
  example: { content_base64: 'IyBCcmllZgoKT3VyIHRvbmU6IHBsYWluLCBzaG9ydCwgZnJpZW5kbHku', filename: 'brief.md' },
  method: 'post',
  path: '/context-entries/{id}/attachments',
  summary: 'Attach a file to a context entry',
  description: `multipart/form-data with the file in \`file\`, at most ${UPLOAD_LIMITS.context_attachment.maxBytes} bytes (5 MB; exactly that is accepted, one byte more is 413 file_too_large, LIMIT_FILE_SIZE). Its text (PDF, DOCX, HTML, CSV, Markdown or plain text, typed by its bytes) is read with the entry.`,
  mcp: { tool: 'context', action: 'attach' },
  upload: UPLOAD_LIMITS.context_attachment,
  params: entryParams,
  body: z.object(UploadBodyFields).strict(),
  bodyRequired: false,
  output: ContextEntrySchema,
  successStatus: 201,
  agentTool: false,
  async handler(ctx, input) {
    const { services, caller } = ctx;
    const entry = await getContextEntry(services.db, caller.workspaceId, caller.userId, input.id);
    requireScopeRole(ctx, entry.scope);
    const file = await receivedFile(ctx, input, 'context_attachment');
    const { row, type } = await storeFile(services, {
      workspaceId: caller.workspaceId,
      userId: caller.userId,
      purpose: 'context_attachment',
      file,
    });
    const refuse = async (message: string, reason?: string) => {
      await services.db.delete(storedFiles).where(eq(storedFiles.id, row.id));
      await services.files.delete(row.storageKey);
      throw new ApiError('invalid_argument', message, {
        field: file.field,
        content_type: type.contentType,
        ...(reason ? { reason } : {}),
      });
    };
    if (!type.format) return refuse(`The file is ${type.contentType}; attach PDF, DOCX, HTML, CSV, Markdown or text.`);
    let text: string;
    try {
      // The parser needs the whole file: read back from the store (an attachment is at most 5 MB).
      const nodes = await parseDocument(type.format, await storedBytes(services, row), undefined, {
        handOver: true,
        ...(services.docxToHtml ? { docxToHtml: services.docxToHtml } : {}),
      });
      text = nodes
        .map((n) => n.text)
        .join('\n')
        .slice(0, MAX_ATTACHMENT_TEXT);
    } catch (error) {
      if (error instanceof IngestLimitError) return refuse(error.message, error.code);
      return refuse(`The ${type.format} file could not be read.`);
    }
    await services.db.insert(contextEntryAttachments).values({
      contextEntryId: entry.id,
      fileId: row.id,
      workspaceId: caller.workspaceId,
      text,
    });
    return toEntry(await getContextEntry(services.db, caller.workspaceId, caller.userId, entry.id));
  },
});

export const contextOperations = [
  createContextEntry,
  listContextEntriesOp,
  getContextEntryOp,
  attachToContextEntry,
  deleteContextEntry,
];
