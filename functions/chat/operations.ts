import { z } from '@hono/zod-openapi';
import type { Queryable } from '../../platform/db/port.js';
import { loadRun } from '../../queues/run-store.js';
import { AGENT_KINDS } from '../agents/index.js';
import { findAgent } from '../agents/index.js';
import { defineOperation } from '../registry.js';
import { defineRunRead, defineRunStream } from '../runs/run-operations.js';
import { outputsOf } from '../artifacts/index.js';
import { chatMessagesOf, getChatOrThrow } from '../agents/index.js';
import { listChats, renameChat } from './repository.js';
import { renderChatRun, renderChatSummary, renderChatTurn, renderOutput } from './render.js';
import {
  ChatIdParams,
  ChatRunSchema,
  ChatSchema,
  ChatSummarySchema,
  ListChatsQuery,
  RenameChatBody,
  RunHandlesSchema,
  StartChatBody,
} from './schemas.js';
import { MAX_ACTIVE_AGENT_RUNS, startAgentRun } from '../agents/index.js';

const common = { tags: ['Chat'], stability: 'stable' as const, visibility: 'public' as const };
const read = { ...common, scopes: ['conversations:read'] as const, minRole: 'viewer' as const };
const write = { ...common, scopes: ['conversations:write'] as const, minRole: 'viewer' as const };

export const startChat = defineOperation({
  ...write,
  id: 'chat.start',
  example: { input: 'What do customers say about pricing?', on_question: 'pause', config: { depth: 'standard' } },
  method: 'post',
  path: '/chat',
  summary: 'Start an agent run on a new or existing chat',
  description:
    "Answers at once (202) with the run's handles; follow `read_url` (long-poll with `wait_ms`) or `stream_url` (server-sent events). " +
    "With `chat_id` the agent sees the thread's earlier turns; a chat runs one run at a time (409 conflict while its last run is queued, running or awaiting input). " +
    `A workspace has at most ${MAX_ACTIVE_AGENT_RUNS} agent runs working at once (429 rate_limited beyond). ` +
    'Send `Idempotency-Key` to make a retry safe: the same key and body within 24 h replays the first response.',
  mcp: { tool: 'agents', action: 'start_chat' },
  body: StartChatBody,
  output: RunHandlesSchema,
  successStatus: 202,
  idempotent: true,
  agentTool: false,
  async handler(ctx, input) {
    return startAgentRun(ctx.services, ctx.caller, {
      input: input.input,
      chatId: input.chat_id,
      name: input.name,
      agent: input.agent,
      onQuestion: input.on_question ?? 'auto',
      depth: input.config?.depth ?? 'standard',
      trigger: ctx.origin === 'mcp' ? 'mcp' : 'api',
    });
  },
});

const runRefs = {
  tags: ['Chat'],
  scopes: ['conversations:read'] as const,
  minRole: 'viewer' as const,
  stability: 'stable' as const,
  idParam: 'run_id',
  kinds: AGENT_KINDS,
};

export const readChatRun = defineRunRead({
  ...runRefs,
  id: 'chat.run_status',
  path: '/chat/runs/{run_id}',
  summary: 'Read an agent run: status, pending input, the answer (or the draft so far) and usage',
  description:
    '`wait_ms` (up to 30,000) holds the request until the run changes past `after` (default: its state when the call arrived), ends, or waits for input. ' +
    "With `Accept: text/event-stream` this path streams the run's events instead (as `stream_url` does). Do not poll faster than once a second.",
  mcp: { tool: 'agents', action: 'chat_status' },
  output: ChatRunSchema,
  render: async (ctx, row) => ({
    ...renderChatRun(row, ctx.services.config.publicUrl),
    outputs: (await outputsOf(ctx.services.db, row.id)).map(renderOutput),
  }),
});

export const streamChatRun = defineRunStream({
  ...runRefs,
  id: 'chat.run_stream',
  path: '/chat/runs/{run_id}/stream',
  summary: "The agent run's events as server-sent events",
  description:
    'Events: `run.*` (queued, started, awaiting_input, resumed, completed, failed, canceled), `turn.started {turn}`, `tool.started {tool, label}`, ' +
    '`tool.completed {tool, label, ok, summary}`, `answer.block {block}`, `stage.completed`/`stage.retrying`. `id:` is the seq; replay with `?after=` or `Last-Event-ID`; the stream ends after the terminal event.',
});

export const listChatsOperation = defineOperation({
  ...read,
  id: 'chats.list',
  method: 'get',
  path: '/chats',
  summary: 'List chats, newest activity first',
  description: 'No `has_more`: there are more when `offset + chats.length < total`.',
  query: ListChatsQuery,
  output: z.object({
    chats: z.array(ChatSummarySchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  async handler(ctx, input) {
    const agentSlugs = input.agent_ref
      ? await slugsFor(ctx.services.db, ctx.caller.workspaceId, input.agent_ref)
      : undefined;
    const { total, rows } = await listChats(
      ctx.services.db,
      ctx.caller.workspaceId,
      {
        status: input.status,
        agentSlugs,
        routineId: input.routine_id,
        subscriptionId: input.subscription_id,
        createdBy: input.created_by === 'me' ? ctx.caller.userId : undefined,
      },
      { limit: input.limit, offset: input.offset },
    );
    return {
      chats: rows.map((r) => renderChatSummary(r.chat, r.status)),
      total,
      limit: input.limit,
      offset: input.offset,
    };
  },
});

/** An agent ref filters by the agent's slug; an unknown ref (or a deleted agent's id) matches by itself, honestly finding nothing or its old chats. */
async function slugsFor(db: Queryable, workspaceId: string, ref: string): Promise<string[]> {
  const found = await findAgent(db, workspaceId, ref);
  return found ? [found.view.slug] : [ref];
}

export const getChat = defineOperation({
  ...read,
  id: 'chats.get',
  method: 'get',
  path: '/chats/{chat_id}',
  summary: 'Read a chat with its thread of turns',
  mcp: { tool: 'agents', action: 'get_chat', resource: 'chat://{chat_id}' },
  params: ChatIdParams,
  output: ChatSchema,
  async handler(ctx, input) {
    const chat = await getChatOrThrow(ctx.services.db, ctx.caller.workspaceId, input.chat_id);
    const status = chat.lastRunId ? await latestStatus(ctx.services.db, chat.lastRunId) : null;
    return {
      ...renderChatSummary(chat, status),
      turns: (await chatMessagesOf(ctx.services.db, chat.id)).map(renderChatTurn),
    };
  },
});

async function latestStatus(db: Queryable, runId: string): Promise<string | null> {
  return (await loadRun(db, runId))?.status ?? null;
}

export const renameChatOperation = defineOperation({
  ...write,
  id: 'chats.rename',
  example: { name: 'Pricing objections' },
  method: 'patch',
  path: '/chats/{chat_id}',
  summary: 'Rename a chat',
  params: ChatIdParams,
  body: RenameChatBody,
  output: ChatSummarySchema,
  async handler(ctx, input) {
    const chat = await renameChat(ctx.services.db, ctx.caller.workspaceId, input.chat_id, input.name);
    return renderChatSummary(chat, chat.lastRunId ? await latestStatus(ctx.services.db, chat.lastRunId) : null);
  },
});

export const chatOperations = [startChat, readChatRun, streamChatRun, listChatsOperation, getChat, renameChatOperation];
