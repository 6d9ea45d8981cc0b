import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { sha256Hex, fromBase64 } from '../../platform/crypto.js';
import { ApiError } from '../../platform/errors.js';
import { fileKey } from '../../platform/files/port.js';
import { fileTooLarge, receivedUpload } from '../http/multipart-upload.js';
import { newId } from '../../platform/ids.js';
import type { Queryable } from '../../platform/db/port.js';
import { storedFiles, type FilePurpose } from '../../schema/knowledge.js';
import { UPLOAD_HEAD_BYTES, type OperationContext, type ReceivedUpload } from '../registry.js';
import type { Services } from '../services.js';
import { sniffType, type SniffedType } from './parsers/index.js';
import { UPLOAD_LIMITS } from './upload-limits.js';

export type StoredFileRow = typeof storedFiles.$inferSelect;

/**
 * The body fields of an upload operation on MCP and in-process calls, where a file cannot be a
 * multipart part: its bytes in base64 (bounded by the 1 MiB JSON body) and its name. Over REST the
 * file is the multipart part instead and these stay absent.
 */
export const UploadBodyFields = {
  content_base64: z
    .string()
    .max(1_400_000)
    .optional()
    .openapi({ description: 'MCP only: the file, base64-encoded (REST sends multipart/form-data instead).' }),
  filename: z.string().min(1).max(255).optional().openapi({ description: 'MCP only: the file name.' }),
};

/**
 * The file an upload operation received: the multipart part (REST), already streamed into the file
 * store, or the base64 body (MCP, agents), put there now, so every handler sees a stored file.
 */
export async function receivedFile(
  ctx: OperationContext,
  input: { content_base64?: string | undefined; filename?: string | undefined },
  purpose: FilePurpose,
): Promise<ReceivedUpload> {
  const spec = UPLOAD_LIMITS[purpose];
  if (ctx.upload) return ctx.upload;
  if (input.content_base64 === undefined)
    throw new ApiError('invalid_argument', `No file: send it in the multipart field "${spec.field}".`, {
      field: spec.field,
      problem: 'missing',
    });
  let bytes: Uint8Array;
  try {
    bytes = fromBase64(input.content_base64);
  } catch {
    throw new ApiError('invalid_argument', 'content_base64 is not valid base64.', { field: 'content_base64' });
  }
  if (bytes.length > spec.maxBytes) throw fileTooLarge(spec);
  const fileId = newId();
  const storageKey = fileKey(ctx.caller.workspaceId, fileId);
  await ctx.services.files.put(storageKey, bytes, 'application/octet-stream');
  return receivedUpload(ctx.services.files, {
    field: spec.field,
    filename: input.filename ?? 'upload',
    fileId,
    storageKey,
    byteSize: bytes.length,
    sha256: await sha256Hex(bytes),
    head: bytes.slice(0, UPLOAD_HEAD_BYTES),
  });
}

/**
 * Keep a received file (already in the file store): typed by its first bytes, recorded under the
 * workspace. A refused or failed record deletes the bytes, so no file is kept without its row.
 */
export async function storeFile(
  services: Services,
  params: { workspaceId: string; userId: string; purpose: FilePurpose; file: ReceivedUpload },
): Promise<{ row: StoredFileRow; type: SniffedType }> {
  const { file } = params;
  try {
    if (file.byteSize > UPLOAD_LIMITS[params.purpose].maxBytes) throw fileTooLarge(UPLOAD_LIMITS[params.purpose]);
    if (file.byteSize === 0)
      throw new ApiError('invalid_argument', `The file in "${file.field}" is empty.`, { field: file.field });
    const type = await sniffType(file.head, file.byteSize);
    const [row] = await services.db
      .insert(storedFiles)
      .values({
        id: file.fileId,
        workspaceId: params.workspaceId,
        purpose: params.purpose,
        filename: file.filename,
        contentType: type.contentType,
        byteSize: file.byteSize,
        storageKey: file.storageKey,
        sha256: file.sha256,
        createdBy: params.userId,
      })
      .returning();
    if (!row) throw new Error('insert returned nothing');
    file.keep();
    return { row, type };
  } catch (error) {
    await file.discardUnlessKept();
    throw error;
  }
}

/** A stored file's bytes, read back from the file store (parsers that need the whole file). */
export async function storedBytes(services: Services, row: StoredFileRow): Promise<Uint8Array> {
  const bytes = await services.files.get(row.storageKey);
  if (!bytes) throw new ApiError('internal', 'The file just stored is not in the file store.', { file_id: row.id });
  return bytes;
}

export async function getStoredFile(
  db: Queryable,
  workspaceId: string,
  id: string,
  purpose: FilePurpose,
): Promise<StoredFileRow> {
  const [row] = await db
    .select()
    .from(storedFiles)
    .where(and(eq(storedFiles.workspaceId, workspaceId), eq(storedFiles.id, id), eq(storedFiles.purpose, purpose)));
  if (!row) throw new ApiError('not_found', 'No such file in this workspace.', { file_id: id });
  return row;
}

/** A stored file as clients see it. */
export const StoredFileSchema = z
  .object({
    id: z.uuid(),
    filename: z.string(),
    content_type: z.string().openapi({ description: 'Read from the bytes, not the name.' }),
    byte_size: z.number().int(),
    sha256: z.string(),
    created_at: z.string(),
  })
  .openapi('StoredFile');

export const toStoredFile = (row: StoredFileRow): z.input<typeof StoredFileSchema> => ({
  id: row.id,
  filename: row.filename,
  content_type: row.contentType,
  byte_size: row.byteSize,
  sha256: row.sha256,
  created_at: row.createdAt.toISOString(),
});
