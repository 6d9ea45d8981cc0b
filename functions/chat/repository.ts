import { and, count, desc, eq, inArray, type SQL } from 'drizzle-orm';
import { type Page, pageWithTotal } from '../../platform/db/paging.js';
import type { Queryable } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { chats } from '../../schema/agents.js';
import { runs, type RunStatus } from '../../schema/runs.js';
import type { ChatRow } from '../agents/threads.js';

export interface ChatListFilters {
  status?: RunStatus | undefined;
  agentSlugs?: string[] | undefined;
  routineId?: string | undefined;
  subscriptionId?: string | undefined;
  /** Only chats this member started. */
  createdBy?: string | undefined;
}

/** A page of the workspace's chats, newest activity first, each with its latest run's status. */
export async function listChats(db: Queryable, workspaceId: string, filters: ChatListFilters, page: Page) {
  const conditions: (SQL | undefined)[] = [eq(chats.workspaceId, workspaceId)];
  if (filters.agentSlugs) conditions.push(inArray(chats.agentSlug, filters.agentSlugs));
  if (filters.routineId) conditions.push(eq(chats.routineId, filters.routineId));
  if (filters.subscriptionId) conditions.push(eq(chats.subscriptionId, filters.subscriptionId));
  if (filters.createdBy) conditions.push(eq(chats.createdBy, filters.createdBy));
  if (filters.status) conditions.push(eq(runs.status, filters.status));
  const where = and(...conditions);
  return pageWithTotal(
    db
      .select({ chat: chats, status: runs.status })
      .from(chats)
      .leftJoin(runs, eq(runs.id, chats.lastRunId))
      .where(where)
      .orderBy(desc(chats.lastActivityAt), desc(chats.id)),
    db.select({ n: count() }).from(chats).leftJoin(runs, eq(runs.id, chats.lastRunId)).where(where),
    page,
  );
}

export async function renameChat(db: Queryable, workspaceId: string, chatId: string, name: string): Promise<ChatRow> {
  const [row] = await db
    .update(chats)
    .set({ name })
    .where(and(eq(chats.workspaceId, workspaceId), eq(chats.id, chatId)))
    .returning();
  if (!row) throw new ApiError('not_found', 'No such chat in this workspace.', { chat_id: chatId });
  return row;
}
