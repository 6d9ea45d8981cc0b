import { and, asc, desc, eq, isNull, or } from 'drizzle-orm';
import { ApiError } from '../../platform/errors.js';
import type { Queryable } from '../../platform/db/port.js';
import { contextEntries, contextEntryAttachments, storedFiles } from '../../schema/knowledge.js';

export type ContextEntryRow = typeof contextEntries.$inferSelect;

export interface ContextEntryWithAttachments extends ContextEntryRow {
  attachments: { fileId: string; filename: string; byteSize: number; text: string }[];
}

/** What a member may see: the workspace's entries and their own member entries (never another member's). */
const visibleTo = (workspaceId: string, userId: string) =>
  and(
    eq(contextEntries.workspaceId, workspaceId),
    or(
      and(eq(contextEntries.scope, 'workspace'), isNull(contextEntries.userId)),
      and(eq(contextEntries.scope, 'member'), eq(contextEntries.userId, userId)),
    ),
  );

export async function listContextEntries(
  db: Queryable,
  workspaceId: string,
  userId: string,
): Promise<ContextEntryWithAttachments[]> {
  const rows = await db
    .select()
    .from(contextEntries)
    .where(visibleTo(workspaceId, userId))
    .orderBy(asc(contextEntries.scope), desc(contextEntries.updatedAt), asc(contextEntries.id));
  return withAttachments(db, workspaceId, rows);
}

export async function getContextEntry(
  db: Queryable,
  workspaceId: string,
  userId: string,
  id: string,
): Promise<ContextEntryWithAttachments> {
  const [row] = await db
    .select()
    .from(contextEntries)
    .where(and(visibleTo(workspaceId, userId), eq(contextEntries.id, id)));
  if (!row) throw new ApiError('not_found', 'No such context entry in this workspace.', { context_entry_id: id });
  const [entry] = await withAttachments(db, workspaceId, [row]);
  return entry as ContextEntryWithAttachments;
}

async function withAttachments(
  db: Queryable,
  workspaceId: string,
  rows: ContextEntryRow[],
): Promise<ContextEntryWithAttachments[]> {
  if (rows.length === 0) return [];
  const attached = await db
    .select({
      entryId: contextEntryAttachments.contextEntryId,
      fileId: contextEntryAttachments.fileId,
      filename: storedFiles.filename,
      byteSize: storedFiles.byteSize,
      text: contextEntryAttachments.text,
    })
    .from(contextEntryAttachments)
    .innerJoin(storedFiles, eq(storedFiles.id, contextEntryAttachments.fileId))
    .where(eq(contextEntryAttachments.workspaceId, workspaceId))
    .orderBy(asc(contextEntryAttachments.createdAt));
  return rows.map((row) => ({
    ...row,
    attachments: attached
      .filter((a) => a.entryId === row.id)
      .map(({ fileId, filename, byteSize, text }) => ({ fileId, filename, byteSize, text })),
  }));
}
