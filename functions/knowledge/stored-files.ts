import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { sha256Hex, fromBase64 } from '../../platform/crypto.js';
import { ApiError } from '../../platform/errors.js';
import { fileKey } from '../../platform/files/port.js';
import { newId } from '../../platform/ids.js';
import type { Queryable } from '../../platform/db/port.js';
import { storedFiles, type FilePurpose } from '../../schema/knowledge.js';
import { fileTooLarge } from '../http/multipart-upload.js';
import type { OperationContext, ReceivedUpload } from '../registry.js';
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

/** The file an upload operation received: the multipart part (REST) or the base64 body (MCP, agents). */
export function receivedFile(
  ctx: OperationContext,
  input: { content_base64?: string | undefined; filename?: string | undefined },
  purpose: FilePurpose,
): ReceivedUpload {
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
  return { field: spec.field, filename: input.filename ?? 'upload', bytes };
}

/**
 * Keep a received file: typed by its bytes, put in the file store under the workspace, and recorded.
 * The row is written after the bytes, so a row always has its file; a failed insert removes the bytes.
 */
export async function storeFile(
  services: Services,
  params: { workspaceId: string; userId: string; purpose: FilePurpose; file: ReceivedUpload },
): Promise<{ row: StoredFileRow; type: SniffedType }> {
  const { file } = params;
  if (file.bytes.length > UPLOAD_LIMITS[params.purpose].maxBytes) throw fileTooLarge(UPLOAD_LIMITS[params.purpose]);
  if (file.bytes.length === 0)
    throw new ApiError('invalid_argument', `The file in "${file.field}" is empty.`, { field: file.field });
  const type = await sniffType(file.bytes);
  const id = newId();
  const key = fileKey(params.workspaceId, id);
  await services.files.put(key, file.bytes, type.contentType);
  try {
    const [row] = await services.db
      .insert(storedFiles)
      .values({
        id,
        workspaceId: params.workspaceId,
        purpose: params.purpose,
        filename: file.filename,
        contentType: type.contentType,
        byteSize: file.bytes.length,
        storageKey: key,
        sha256: await sha256Hex(file.bytes),
        createdBy: params.userId,
      })
      .returning();
    if (!row) throw new Error('insert returned nothing');
    return { row, type };
  } catch (error) {
    await services.files.delete(key).catch(() => undefined);
    throw error;
  }
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
