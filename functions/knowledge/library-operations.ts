import { z } from '@hono/zod-openapi';
import { and, count, desc, eq } from 'drizzle-orm';
import { storedFiles } from '../../schema/knowledge.js';
import { defineOperation } from '../registry.js';
import { uuidParam } from '../schemas.js';
import { pagingParams } from './schemas.js';
import {
  getStoredFile,
  receivedFile,
  storeFile,
  StoredFileSchema,
  toStoredFile,
  UploadBodyFields,
} from './stored-files.js';
import { UPLOAD_LIMITS } from './upload-limits.js';

const common = { tags: ['Platform library'], stability: 'beta' as const, visibility: 'public' as const };

/**
 * The platform library: files a workspace keeps on the platform (any type, typed by its bytes), at
 * most 25 MB each. Paths are not shown in the spec; these are documented in docs/guides/knowledge.md.
 */
export const uploadLibraryFile = defineOperation({
  ...common,
  scopes: ['platform:write'],
  minRole: 'editor',
  id: 'library.upload',
  example: { content_base64: 'IyBMb2dvIGd1aWRlCgpVc2UgdGhlIGJsdWUgbG9nbyBvbiB3aGl0ZS4=', filename: 'logo-guide.md' },
  method: 'post',
  path: '/library/files',
  summary: 'Upload a file to the platform library',
  description: `multipart/form-data with the file in \`file\`, at most ${UPLOAD_LIMITS.library.maxBytes} bytes (25 MB; exactly that is accepted, one byte more is 413 file_too_large, LIMIT_FILE_SIZE).`,
  mcp: { tool: 'library', action: 'upload' },
  upload: UPLOAD_LIMITS.library,
  body: z.object(UploadBodyFields).strict(),
  bodyRequired: false,
  output: StoredFileSchema,
  successStatus: 201,
  agentTool: false,
  async handler(ctx, input) {
    const { row } = await storeFile(ctx.services, {
      workspaceId: ctx.caller.workspaceId,
      userId: ctx.caller.userId,
      purpose: 'library',
      file: await receivedFile(ctx, input, 'library'),
    });
    return toStoredFile(row);
  },
});

export const listLibraryFiles = defineOperation({
  ...common,
  scopes: ['platform:read'],
  minRole: 'viewer',
  id: 'library.list',
  method: 'get',
  path: '/library/files',
  summary: 'Files of the platform library, newest first',
  mcp: { tool: 'library', action: 'list' },
  query: pagingParams,
  output: z.object({
    files: z.array(StoredFileSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  async handler(ctx, input) {
    const where = and(eq(storedFiles.workspaceId, ctx.caller.workspaceId), eq(storedFiles.purpose, 'library'));
    const rows = await ctx.services.db
      .select()
      .from(storedFiles)
      .where(where)
      .orderBy(desc(storedFiles.createdAt), desc(storedFiles.id))
      .limit(input.limit)
      .offset(input.offset);
    const [total] = await ctx.services.db.select({ n: count() }).from(storedFiles).where(where);
    return { files: rows.map(toStoredFile), total: total?.n ?? 0, limit: input.limit, offset: input.offset };
  },
});

export const deleteLibraryFile = defineOperation({
  ...common,
  scopes: ['platform:write'],
  minRole: 'editor',
  id: 'library.delete',
  method: 'delete',
  path: '/library/files/{id}',
  summary: 'Delete a file of the platform library',
  mcp: { tool: 'library', action: 'delete' },
  params: z.object({ id: uuidParam('id') }).strict(),
  output: z.object({ deleted: z.boolean() }),
  async handler(ctx, input) {
    const row = await getStoredFile(ctx.services.db, ctx.caller.workspaceId, input.id, 'library');
    await ctx.services.db.delete(storedFiles).where(eq(storedFiles.id, row.id));
    await ctx.services.files.delete(row.storageKey);
    return { deleted: true };
  },
});

export const libraryOperations = [uploadLibraryFile, listLibraryFiles, deleteLibraryFile];
