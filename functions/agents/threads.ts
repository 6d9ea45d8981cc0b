import { and, asc, eq, sql } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { chatMessages, chats } from '../../schema/agents.js';

/**
 * An agent run's thread (a chat): created when a run starts without one, read for its history, and
 * appended to when a run starts and when it ends. Agent runs own it; the chat surface lists and renames.
 */

export type ChatRow = typeof chats.$inferSelect;
export type ChatMessageRow = typeof chatMessages.$inferSelect;

/** A chat of this workspace, or 404 (missing and another workspace's are the same answer). */
export async function getChatOrThrow(db: Queryable, workspaceId: string, chatId: string): Promise<ChatRow> {
  const [row] = await db
    .select()
    .from(chats)
    .where(and(eq(chats.workspaceId, workspaceId), eq(chats.id, chatId)));
  if (!row) throw new ApiError('not_found', 'No such chat in this workspace.', { chat_id: chatId });
  return row;
}

export async function insertChat(
  db: Queryable,
  chat: {
    workspaceId: string;
    name: string;
    agentSlug: string;
    agentId: string | null;
    createdBy: string;
    routineId?: string | null;
    subscriptionId?: string | null;
    now: Date;
  },
): Promise<ChatRow> {
  const [row] = await db
    .insert(chats)
    .values({
      id: newId(),
      workspaceId: chat.workspaceId,
      name: chat.name,
      agentSlug: chat.agentSlug,
      agentId: chat.agentId,
      routineId: chat.routineId ?? null,
      subscriptionId: chat.subscriptionId ?? null,
      createdBy: chat.createdBy,
      createdAt: chat.now,
      lastActivityAt: chat.now,
    })
    .returning();
  if (!row) throw new Error('chat insert returned nothing');
  return row;
}

/** Append a turn to the thread (the caller holds the chat: one run at a time per chat). */
export async function appendChatMessage(
  db: Queryable,
  message: {
    workspaceId: string;
    chatId: string;
    runId: string;
    role: 'user' | 'assistant';
    content: string;
    answer?: Record<string, unknown> | null;
    status?: string | null;
    now: Date;
  },
): Promise<void> {
  await db.insert(chatMessages).values({
    id: newId(),
    workspaceId: message.workspaceId,
    chatId: message.chatId,
    runId: message.runId,
    seq: sql`(select coalesce(max(${chatMessages.seq}), 0) + 1 from ${chatMessages} where ${chatMessages.chatId} = ${message.chatId})`,
    role: message.role,
    content: message.content,
    answer: message.answer ?? null,
    status: message.status ?? null,
    createdAt: message.now,
  });
  await db.update(chats).set({ lastActivityAt: message.now }).where(eq(chats.id, message.chatId));
}

export async function chatMessagesOf(db: Queryable, chatId: string): Promise<ChatMessageRow[]> {
  return db.select().from(chatMessages).where(eq(chatMessages.chatId, chatId)).orderBy(asc(chatMessages.seq));
}
