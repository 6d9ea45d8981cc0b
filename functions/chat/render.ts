import type { RunRow } from '../../queues/run-store.js';
import { isTerminal } from '../../queues/run-store.js';
import type { Answer } from '../agents/answer.js';
import { AgentRunInputSchema, AgentRunStateSchema } from '../agents/index.js';
import type { ChatMessageRow, ChatRow } from '../agents/threads.js';
import type { ChatRunView } from './schemas.js';
import { runUrls } from '../agents/index.js';

/** The read body of one agent run (GET /chat/runs/{run_id}, MCP agents.chat_status). */
export function renderChatRun(row: RunRow, publicUrl: string): ChatRunView {
  const input = AgentRunInputSchema.parse(row.input);
  const state = AgentRunStateSchema.parse(row.state);
  const pending = row.status === 'awaiting_input' ? row.pendingInput : null;
  const ended = isTerminal(row.status);
  return {
    run_id: row.id,
    session_id: row.id,
    chat_id: input.chat_id,
    status: row.status,
    trigger: input.trigger,
    agent: { id: input.agent.id, slug: input.agent.slug, name: input.agent.name },
    input: input.message,
    on_question: input.on_question,
    depth: input.depth,
    pending_input_type: (pending?.type as ChatRunView['pending_input_type'] | undefined) ?? null,
    pending_input_schema: pending?.schema ?? null,
    pending_input_context: pending?.context ?? null,
    answer: row.status === 'complete' ? state.answer : null,
    draft: ended ? null : { text: state.draft_text, content_blocks: [] },
    last_seq: row.lastSeq,
    usage: {
      turns_used: state.turns_used,
      turn_budget: state.turn_budget,
      input_tokens: state.usage.input_tokens,
      output_tokens: state.usage.output_tokens,
    },
    error: row.error ? { code: row.error.code, message: row.error.message } : null,
    parent_run_id: row.parentRunId,
    created_at: row.createdAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    completed_at: row.completedAt?.toISOString() ?? null,
    updated_at: row.updatedAt.toISOString(),
    ...runUrls(publicUrl, row.id),
  };
}

export function renderChatSummary(chat: ChatRow, status: string | null) {
  return {
    chat_id: chat.id,
    name: chat.name,
    agent: { slug: chat.agentSlug, id: chat.agentId },
    status: status as ChatRunView['status'] | null,
    last_run_id: chat.lastRunId,
    routine_id: chat.routineId,
    subscription_id: chat.subscriptionId,
    created_at: chat.createdAt.toISOString(),
    last_activity_at: chat.lastActivityAt.toISOString(),
  };
}

export function renderChatTurn(message: ChatMessageRow) {
  return {
    seq: message.seq,
    role: message.role,
    content: message.content,
    run_id: message.runId,
    status: (message.status as ChatRunView['status'] | null) ?? null,
    answer: (message.answer as Answer | null) ?? null,
    created_at: message.createdAt.toISOString(),
  };
}

/** What the run tried to write or do, and what came of it (documents through the gate, actions). */
export function renderOutput(o: {
  kind: string;
  target: string | null;
  version: number | null;
  outcome: string;
  reason: string | null;
  createdAt: Date;
}) {
  return {
    kind: o.kind as 'document' | 'action',
    target: o.target,
    version: o.version,
    outcome: o.outcome as 'published' | 'proposed' | 'refused' | 'sent',
    reason: o.reason,
    at: o.createdAt.toISOString(),
  };
}
